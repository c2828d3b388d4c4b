"""Page-number pagination that refuses what it cannot read, and its schema parameters.

DRF's ``PageNumberPagination`` quietly falls back to the default page size for a
``page_size`` it cannot read (``null``, ``-3``, ``abc``) and answers a malformed ``page``
with a 404 "Invalid page." as if the page were merely past the end. Here (issue 16,
item 10: the API true to its schema):

- ``page`` must be a whole number from 1 (to :data:`MAX_PAGE`) and ``page_size`` one from
  1 to the endpoint's maximum, else a 400 naming the parameter; a page past the last stays
  a 404.
- :func:`page_parameters` gives the two parameters as the schema shows them, with those
  bounds, so that the schema and the check say the same; :func:`page_serializer` the
  answer's schema (``count``, ``next``, ``previous``, ``results``).
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request

_WHOLE = re.compile(r"[0-9]{1,9}")
MAX_PAGE = 999_999_999


class StrictPagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size: int = 200

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> Any:
        problems: dict[str, list[str]] = {}
        page = request.query_params.get(self.page_query_param)
        if page is not None and not _whole_from_1(page):
            problems["page"] = [_("A page is a whole number from 1, for example 2.")]
        size = request.query_params.get("page_size")
        if size is not None and not (_whole_from_1(size) and int(size) <= self.max_page_size):
            problems["page_size"] = [
                _("A page size is a whole number from 1 to %(n)d.") % {"n": self.max_page_size}
            ]
        if problems:
            raise ValidationError(problems)
        return super().paginate_queryset(queryset, request, view)


def _whole_from_1(text: str) -> bool:
    return _WHOLE.fullmatch(text) is not None and int(text) >= 1


def page_parameters(max_page_size: int) -> list[OpenApiParameter]:
    return [
        OpenApiParameter(
            "page",
            {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
            description="1-based page number",
        ),
        OpenApiParameter(
            "page_size",
            {"type": "integer", "minimum": 1, "maximum": max_page_size},
            description=f"rows per page, at most {max_page_size}",
        ),
    ]


def page_serializer(
    item: type[serializers.Serializer], ref_name: str
) -> type[serializers.Serializer]:
    """The schema of one page of :class:`StrictPagination`, whose ``results`` are a list of
    ``item``, named ``ref_name`` in the schema (fields in the answer's order)."""
    meta = type("Meta", (), {"ref_name": ref_name})
    fields = {
        "count": serializers.IntegerField(),
        "next": serializers.URLField(allow_null=True),
        "previous": serializers.URLField(allow_null=True),
        "results": item(many=True),
        "Meta": meta,
    }
    return type(f"{ref_name}Serializer", (serializers.Serializer,), fields)
