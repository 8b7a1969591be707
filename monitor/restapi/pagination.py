"""Pages of every REST list: `limit` rows from `offset`, at most API_MAX_PAGE_SIZE a page, so no request makes a worker
build every stored row; a limit or offset out of range is a 400 that says the range, never a silent default."""

from __future__ import annotations

from django.conf import settings
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

MAX_OFFSET = 2**31 - 1  # the database's integers: beyond it an offset overflows instead of finding nothing


def whole_number(request: Request, name: str, default: int, lowest: int, highest: int) -> int:
    """The query parameter `name` as a whole number from lowest to highest (absent: default); else a 400."""
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    text = raw.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 10 and lowest <= int(text) <= highest):
        raise ValidationError({name: [f"{name} must be a whole number from {lowest} to {highest}"]})
    return int(text)


class BoundedPagination(LimitOffsetPagination):
    """DRF's limit/offset pages (`count`, `next`, `previous`, `results`), with the limit bounded by the settings."""

    def get_limit(self, request: Request) -> int:
        return whole_number(request, self.limit_query_param, settings.API_PAGE_SIZE, 1, settings.API_MAX_PAGE_SIZE)

    def get_offset(self, request: Request) -> int:
        return whole_number(request, self.offset_query_param, 0, 0, MAX_OFFSET)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        bounds = {
            self.limit_query_param: {"minimum": 1, "maximum": settings.API_MAX_PAGE_SIZE},
            self.offset_query_param: {"minimum": 0, "maximum": MAX_OFFSET},
        }
        for parameter in parameters:
            parameter["schema"] |= bounds.get(parameter["name"], {})
        return parameters
