"""Celery tasks of assessments (queue `web`): webhook deliveries and closing sessions at their deadline."""

from __future__ import annotations

from celery import shared_task

from gridstride.assessments import actions, webhooks
from gridstride.assessments.models import WebhookDelivery
from gridstride.lib import clock


class DeliveryFailed(Exception):
    pass


@shared_task(
    name="gridstride.assessments.deliver_webhook",
    bind=True,
    autoretry_for=(DeliveryFailed,),
    retry_backoff=5,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=webhooks.MAX_ATTEMPTS - 1,
)
def deliver_webhook(self, delivery_id: int) -> bool:  # type: ignore[no-untyped-def]
    delivery = WebhookDelivery.objects.select_related("assessment").filter(pk=delivery_id).first()
    if delivery is None or delivery.delivered_at is not None:
        return True
    if webhooks.attempt(delivery):
        return True
    raise DeliveryFailed(f"webhook {delivery_id}: {delivery.last_error or delivery.status_code}")


@shared_task(name="gridstride.assessments.close_overdue", acks_late=True)
def close_overdue() -> int:
    return actions.close_overdue(clock.now())
