"""The site's kombu transports are the judge's (judge/transports.py): the filesystem broker's
messages written atomically, and on both brokers a message that cannot be read set aside as a dead
letter instead of stopping the worker (docs/pipeline.md, "Dead letters"). One implementation
serves both sides; judge/transports.py needs only kombu and judge.protocol, never torch.
"""

from judge.transports import FilesystemTransport, RedisTransport

__all__ = ["FilesystemTransport", "RedisTransport"]
