"""`python manage.py clean_media [--delete]`: files no document or import refers to.

An upload or an import interrupted between storing a file and committing its row leaves the
file behind (`documents.media`). Without `--delete` the command only lists them.
"""

from __future__ import annotations

from datetime import timedelta

from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents import media
from extraction.errors import size_text

SHOWN = 20  # files listed by name; the rest are counted


class Command(BaseCommand):
    help = (
        "List the files of the media storage that no document or import refers to (left by "
        "an interrupted upload or import); --delete deletes them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--delete", action="store_true", help="delete them")
        parser.add_argument(
            "--min-age-hours", type=float, default=1.0,
            help="only files last modified this long ago (an upload in flight is younger)",
        )  # fmt: skip

    def handle(self, *args: object, **options: object) -> None:
        hours = float(options["min_age_hours"])  # type: ignore[arg-type]
        if hours < 0:
            raise CommandError("--min-age-hours must not be negative.")
        age = timedelta(hours=hours)
        orphans = list(media.orphan_files(older_than=age))
        for orphan in orphans[:SHOWN]:
            self.stdout.write(f"{orphan.name} ({size_text(orphan.size)})")
        if len(orphans) > SHOWN:
            self.stdout.write(f"... and {len(orphans) - SHOWN} more.")
        total = size_text(sum(orphan.size for orphan in orphans))
        if not options["delete"]:
            self.stdout.write(
                f"{len(orphans)} file(s) ({total}) that no document or import refers to"
                + ("; --delete deletes them." if orphans else ".")
            )
            return
        for orphan in orphans:
            default_storage.delete(orphan.name)
        folders = media.empty_folders_remove(older_than=age)
        self.stdout.write(
            f"Deleted {len(orphans)} file(s) ({total}) that no document or import referred to"
            f" and {folders} empty folder(s)."
        )
