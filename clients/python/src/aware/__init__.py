"""aware-client: the Python SDK for aware, the situationally aware AI data assistant.

    from aware import AwareClient
    aware = AwareClient("127.0.0.1:50051")
    aware.sql("SELECT plan, count(*) AS customers FROM customer_churn GROUP BY 1").to_pandas()
    aware.chat("average price by neighbourhood").answer()

``AwareClient`` is synchronous; ``AsyncAwareClient`` (``aware.aio``) is the same API for asyncio.
The generated messages and stubs are in ``aware.v1``; every failure is an ``aware.AwareError``
subclass named after aware's error code (``aware.SqlPolicyViolation``, ``aware.NotFound``, …).
"""

from .aio import AsyncAwareClient, AsyncChatRun
from .client import AwareClient, ChatRun
from .errors import *  # noqa: F401,F403 - every error class, named after aware's codes
from .errors import __all__ as _error_names
from .events import (
    Answer,
    Clarification,
    Confirmation,
    Connected,
    Event,
    Heartbeat,
    Reconnecting,
    StreamItem,
    ToolResult,
)
from .models import Dataset, NewApiKey, SearchResults, Statistics
from .results import Column, Table

__version__ = "0.1.0"

__all__ = [
    "AwareClient",
    "AsyncAwareClient",
    "ChatRun",
    "AsyncChatRun",
    "Answer",
    "Clarification",
    "Column",
    "Confirmation",
    "Connected",
    "Dataset",
    "Event",
    "Heartbeat",
    "NewApiKey",
    "Reconnecting",
    "SearchResults",
    "Statistics",
    "StreamItem",
    "Table",
    "ToolResult",
    *_error_names,
]
