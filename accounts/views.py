from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from accounts.forms import ProfileForm


@login_required
def profile_edit(request: HttpRequest) -> HttpResponse:
    form = ProfileForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Your profile is saved."))
        return redirect("profile_edit")
    status = 400 if request.method == "POST" else 200
    return render(request, "accounts/profile_edit.html", {"form": form}, status=status)
