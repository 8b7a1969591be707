"""Celery tasks of the graphs domain: thin wrappers over plain functions."""

from celery import shared_task

from monitor.graphs.warming import warm_viewed


@shared_task(name="graphs.warm_viewed", ignore_result=True)
def warm_viewed_task() -> None:
    """Around each 5-minute rollup window: read the pages viewed lately again (monitor.graphs.warming)."""
    warm_viewed()
