"""The open API: personal access tokens, JSON endpoints (django-ninja) and NDJSON streams.

It sits on top of the other apps (DESIGN.md: accounts <- games <- community <- tournaments <-
api) and adds no rule of its own: every read is another app's selector, every write its service.
"""
