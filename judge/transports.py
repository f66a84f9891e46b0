"""The judge's kombu transports: the filesystem broker's messages written atomically, and on both
brokers a message that cannot be read set aside as a dead letter instead of stopping the worker.

The site uses these same classes (platform/gridstride/submissions/transports.py re-exports them:
the site may import this module, which needs only kombu and judge.protocol);
tests/web/test_pipeline_config.py and test_dead_letters.py check both sides. The stock transports write a message file in place (a consumer polling at that moment reads
half of it) and raise out of the consumer loop on a message that is not JSON or not kombu's
envelope: Celery then stops with "Unrecoverable error" (docs/pipeline.md, "Dead letters").
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from typing import Any

from kombu.transport import filesystem, redis
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

from judge.protocol import envelope_fault, keep_dead_letter, undecodable_raw

log = logging.getLogger("judge.transports")


def _set_aside(options: dict[str, Any], raw: Any, reason: str, queue: str) -> None:
    path = keep_dead_letter(options.get("dead_letter_folder"), raw=raw, reason=reason, queue=queue)
    log.error("unreadable message on queue %r set aside in %s: %s", queue, path or "(no folder: log only)", reason)


def _deliver_checked(transport: Any, deliver: Any, message: Any, queue: str) -> None:
    fault = envelope_fault(message)
    if fault:
        _set_aside(transport.client.transport_options, message, fault, queue)
        return
    deliver(message, queue)


class _FilesystemChannel(filesystem.Channel):
    def _put(self, queue: Any, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]  # kombu names it twice
        # Consumers take names in order: the priority first (lower first, as on Redis), then the
        # zero-padded time. The stock transport ignores priorities.
        priority = self._get_message_priority(payload)
        name = f"{priority}_{round(time.monotonic() * 1000):016d}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # A leading dot: consumers match "<anything>.<queue>.msg" after the first dot, never this.
        temporary = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(temporary, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(temporary, final)
        except OSError as exc:
            raise filesystem.ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue: Any, timeout: Any = None) -> Any:  # kombu passes no timeout here
        while True:  # ends with a message, or with Empty once the folder holds no more
            try:
                return super()._get(queue)
            except ValueError as exc:  # not UTF-8 or not JSON; the file is already out of the queue
                _set_aside(
                    self.connection.client.transport_options, undecodable_raw(exc), f"not JSON: {exc}", str(queue)
                )


class FilesystemTransport(filesystem.Transport):
    Channel = _FilesystemChannel

    def _deliver(self, message: Any, queue: Any) -> None:
        _deliver_checked(self, super()._deliver, message, queue)


class _RedisChannel(redis.Channel):
    def _brpop_read(self, **options: Any) -> Any:
        try:
            return super()._brpop_read(**options)
        except ValueError as exc:  # BRPOP took the item off the list: keep it aside, go on
            _set_aside(self.connection.client.transport_options, undecodable_raw(exc), f"not JSON: {exc}", "")
            return False

    def _get(self, queue: Any, timeout: Any = None) -> Any:  # kombu passes no timeout here
        while True:
            try:
                return super()._get(queue)
            except ValueError as exc:
                _set_aside(
                    self.connection.client.transport_options, undecodable_raw(exc), f"not JSON: {exc}", str(queue)
                )


class RedisTransport(redis.Transport):
    Channel = _RedisChannel

    def _deliver(self, message: Any, queue: Any) -> None:
        _deliver_checked(self, super()._deliver, message, queue)
