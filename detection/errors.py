"""The one error base class of the detection library."""

__all__ = ["DetectionError"]


class DetectionError(Exception):
    """Raised for invalid input to the detection library; the message says how to fix it."""
