"""The JSON views outside the viewsets (graph series and CSV, the latency heatmap, event markers) served as REST
framework views: the same authentication as the rest of the API (a token, with its checks, or a session), their own
answers and `{"error": ...}` messages kept, and a place in the OpenAPI schema so clients and the fuzz tests see them."""

from __future__ import annotations

from collections.abc import Callable

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import IsAuthenticated
from rest_framework.views import APIView, exception_handler

NOT_SIGNED_IN = "log in or send a valid API token (Authorization: Bearer <token>)"
ERROR = inline_serializer("Error", {"error": serializers.CharField()})
ERRORS = {code: ERROR for code in (400, 401, 403, 404, 503)}


class ViewDecides(BaseContentNegotiation):
    """The view answers JSON or CSV as its URL says, whatever the Accept header asks (no 406)."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


def error_as_json(exc: Exception, context: dict):
    """REST framework's answer to a refusal (401, 403, 405), worded as these views' other errors: {"error": ...}."""
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.NotAuthenticated):
        message = NOT_SIGNED_IN
    elif isinstance(response.data, dict) and "detail" in response.data:
        message = str(response.data["detail"])
    else:
        message = str(response.data)
    response.data = {"error": message}
    return response


class JsonView(APIView):
    """A GET-only view for signed-in users (session or token) whose function answers with a Django response."""

    permission_classes = [IsAuthenticated]
    content_negotiation_class = ViewDecides

    def get_exception_handler(self):
        return error_as_json


def json_get(parameters: list[OpenApiParameter], responses: dict | None = None) -> Callable:
    """Serve `answer(request, **url_kwargs)` as a JsonView's GET, described in the schema by its query `parameters`."""

    def wrap(answer: Callable) -> Callable:
        @extend_schema(
            parameters=parameters,
            responses={**(responses or {200: OpenApiTypes.OBJECT}), **ERRORS},
            description=answer.__doc__,
        )
        def get(self, request, *args, **kwargs):
            return answer(request, *args, **kwargs)

        return type(answer.__name__, (JsonView,), {"get": get, "__doc__": answer.__doc__}).as_view()

    return wrap


def query(name: str, kind=OpenApiTypes.STR, description: str = "", **more) -> OpenApiParameter:
    """A query parameter of these views (`many=True` for a repeated one, as `graph=1&graph=2`)."""
    if more.get("many") and isinstance(kind, dict):  # a schema of our own: its array, repeated as graph=1&graph=2
        more.pop("many")
        kind, more["explode"] = {"type": "array", "items": kind}, True
    return OpenApiParameter(name, kind, OpenApiParameter.QUERY, description=description, **more)
