"""The admins' "send a test" buttons (mail server, channels): the form is saved first, then the test runs."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse


class SaveThenTest:
    """An admin whose change form has a "send a test" button (`_send_test`): save, then `_send_test`."""

    def response_add(self, request: HttpRequest, obj, post_url_continue=None) -> HttpResponse:
        if "_send_test" in request.POST:
            return self._send_test(request, obj)
        return super().response_add(request, obj, post_url_continue)

    def response_change(self, request: HttpRequest, obj) -> HttpResponse:
        if "_send_test" in request.POST:
            return self._send_test(request, obj)
        return super().response_change(request, obj)
