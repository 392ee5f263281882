"""Messages and service stubs generated from proto/aware/v1 by clients/python/generate (do not edit)."""
