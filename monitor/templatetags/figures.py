"""A page's graph figures, made in one pass: a device page has 160 of them, and a template included per figure
took 25 ms of the page's 40 (the charts, their tools and legends are made by static/js/graphs.js)."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()


@register.simple_tag
def graph_figures(cards: list[dict], thumb: bool = False, large: bool = False) -> SafeString:
    """Every card as `<figure class="graph">`: its ids, data URLs and choices as data attributes, its title
    (escaped: titles and aliases come from devices), and an empty chart box."""
    return format_html_join("", "{}", ((_figure(card, thumb, large),) for card in cards))


def _figure(card: dict, thumb: bool, large: bool) -> SafeString:
    ident = ("data-graph-id" if card["kind"] == "graph" else "data-aggregate-id", card["id"])
    attrs = [ident, ("data-series-url", card["series_url"]), ("data-refresh-s", card["refresh_s"])]
    if card.get("reads"):  # graphs that read the same series: fetched together (static/js/graphs.js)
        attrs.append(("data-reads", card["reads"]))
    attrs.append(("style", f"--rows: {int(card.get('rows', 3))}"))  # the legend's rows: its room is kept (CSS)
    if card.get("percent"):
        attrs.append(("data-percent", "1"))
    if card.get("bits"):
        attrs.append(("data-bits", "1"))
    if card.get("item_id"):
        item = card["item_id"]
        attrs.append(("data-unpin-url", reverse("dashboard-unpin", args=[item])))
        attrs.append(("data-up-url", reverse("dashboard-move", args=[item, "up"])))
        attrs.append(("data-down-url", reverse("dashboard-move", args=[item, "down"])))
    elif card.get("pinned"):
        attrs.append(("data-pinned", "1"))
    if card.get("path_url"):
        attrs += [("data-path-url", card["path_url"]), ("data-volume", card["volume"])]
    if card.get("url") and not large:
        title = format_html('<a class="keep-range" href="{}">{}</a>', card["url"], card["title"])
    else:
        title = format_html("{}", card["title"])
    alias = format_html(' <span class="alias">({})</span>', card["alias"]) if card.get("alias") else ""
    return format_html(
        '<figure class="graph{}" {}>\n  <figcaption>{}{}</figcaption>\n  <div class="canvas-box"><canvas></canvas>'
        '</div>\n  <p class="graph-status"></p>\n</figure>\n',
        " thumb" if thumb else "",
        format_html_join(" ", '{}="{}"', attrs),
        title,
        alias,
    )
