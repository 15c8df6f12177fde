"""A player's settings for playing that are not reminders: how a click on a move acts."""

from __future__ import annotations

from accounts.models import User


def confirm_moves_update(*, user: User, confirm_moves: str) -> None:
    """Saves the "Confirm my moves" choice (``User.confirm_moves``: on, off or auto); the
    table page reads it from the user."""
    user.confirm_moves = confirm_moves
    user.save(update_fields=["confirm_moves"])
