"""An upload handler placed after core.uploads.LimitedUploadHandler in the tests: it records
how many bytes of each file reached it (what a real handler would have stored)."""

from __future__ import annotations

from django.core.files.uploadhandler import FileUploadHandler

RECEIVED: list[int] = []


class SpyHandler(FileUploadHandler):
    def new_file(self, *args: object, **kwargs: object) -> None:
        super().new_file(*args, **kwargs)  # type: ignore[arg-type]
        RECEIVED.append(0)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        RECEIVED[-1] += len(raw_data)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None
