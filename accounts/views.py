from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from accounts.forms import ProfileForm
from games.vacations import current_vacation, vacation_days_left


@login_required
def profile_edit(request: HttpRequest) -> HttpResponse:
    form = ProfileForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Your profile is saved."))
        return redirect("profile_edit")
    status = 400 if request.method == "POST" else 200
    context = {
        "form": form,
        "vacation_days_left": vacation_days_left(request.user),
        "vacation": current_vacation(request.user),
    }
    return render(request, "accounts/profile_edit.html", context, status=status)
