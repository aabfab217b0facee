"""`python manage.py import_archive PATH... --archive NAME --owner USER`: load an archive in bulk.

For years of published articles or past submissions: folders (recursively) and ZIP batches are
extracted and analysed in worker processes and stored a chunk at a time with one COPY of the
postings, instead of one Celery task per document (`documents.bulk.engine`). The archive
is searchable as soon as the command ends; its documents are not checked against each other
unless `--check` queues that (the Celery worker does it in the background). Running the same
command again after an interruption skips what was already imported (same content).
"""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents import services
from documents.bulk import engine as archive_import
from documents.models import Collection

SHOWN = 20  # failed or skipped files listed by name; the rest are counted


class Command(BaseCommand):
    help = (
        "Import folders and ZIP batches into an archive collection in bulk (created if "
        "needed), searchable at once; its documents are not checked against each other "
        "unless --check."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path, help="files, folders or ZIP batches")
        parser.add_argument(
            "--archive", required=True, metavar="NAME_OR_ID",
            help="the archive: its id, or the name of one of --owner's archives (created "
            "when there is none)",
        )  # fmt: skip
        parser.add_argument("--owner", help="username owning the archive (needed with a name)")
        parser.add_argument(
            "--processes", type=int, default=0,
            help="worker processes extracting and analysing (default: one per core)",
        )  # fmt: skip
        parser.add_argument(
            "--chunk", type=int, default=archive_import.CHUNK,
            help="documents stored per transaction",
        )  # fmt: skip
        parser.add_argument(
            "--check", action="store_true",
            help="afterwards, queue the imported documents to be checked against each other "
            "(the Celery worker does it on the bulk queue)",
        )  # fmt: skip

    def handle(self, *args: object, **options: object) -> None:
        paths: list[Path] = options["paths"]  # type: ignore[assignment]
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise CommandError(f"No such file or folder: {', '.join(missing)}.")
        if int(options["chunk"]) < 1 or int(options["processes"]) < 0:  # type: ignore[call-overload]
            raise CommandError("--chunk must be at least 1 and --processes at least 0.")
        collection = self._archive(str(options["archive"]), options["owner"])  # type: ignore[arg-type]
        self.stdout.write(f"Importing into the archive {collection.name!r} (id {collection.id}).")
        try:
            report = archive_import.archive_import(
                collection,
                archive_import.import_files(paths),
                processes=int(options["processes"]),  # type: ignore[call-overload]
                chunk=int(options["chunk"]),  # type: ignore[call-overload]
                check=bool(options["check"]),
                progress=self._progress,
            )
        except services.UploadError as error:
            raise CommandError(str(error)) from error
        if report.imported and archive_import.index_refresh_after_import(report.document_ids):
            self.stdout.write(
                "Heavy features recorded, postings vacuumed and analysed: lookups use the"
                " index at once."
            )
        self._summary(report)

    def _archive(self, wanted: str, owner_name: str | None) -> Collection:
        if wanted.isdigit():
            collection = Collection.objects.filter(id=int(wanted)).first()
            if collection is None:
                raise CommandError(f"No collection with id {wanted}.")
            return collection
        if not owner_name:
            raise CommandError("--owner is needed to find or create an archive by name.")
        owner = get_user_model().objects.filter(username=owner_name).first()
        if owner is None:
            raise CommandError(f"No user {owner_name!r}.")
        found = Collection.objects.filter(owner=owner, name=wanted, deleting=False).first()
        if found is not None:
            return found
        self.stdout.write(f"Creating the archive {wanted!r} of {owner_name}.")
        return services.collection_create(owner=owner, name=wanted, kind=Collection.Kind.ARCHIVE)

    def _progress(self, report: archive_import.ImportReport) -> None:
        self.stderr.write(
            f"{report.files:,} files read: {report.imported:,} imported, {len(report.failed):,}"
            f" failed, {report.duplicates:,} already there, {len(report.skipped):,} skipped"
            f" ({report.documents_per_second:,.0f} documents/s)"
        )

    def _summary(self, report: archive_import.ImportReport) -> None:
        for title, entries in (("Failed", report.failed), ("Skipped", report.skipped)):
            for path, reason in entries[:SHOWN]:
                self.stdout.write(f"{title}: {path}: {reason}")
            if len(entries) > SHOWN:
                self.stdout.write(f"{title}: {len(entries) - SHOWN} more.")
        self.stdout.write(
            f"Imported {report.imported:,} documents ({report.megabytes:.1f} MB,"
            f" {report.postings:,} postings) in {report.seconds:.1f} s"
            f" ({report.documents_per_second:,.0f} documents/s); {len(report.failed):,} failed,"
            f" {report.duplicates:,} already in the archive, {len(report.skipped):,} skipped."
        )
        if report.requeued:
            self.stdout.write(
                f"{report.requeued:,} web pages stored before their site's template was "
                "learned are queued to be read again (the Celery worker does it)."
            )
        if report.queued_checks:
            self.stdout.write(
                f"{report.queued_checks:,} documents queued to be checked against each other."
            )
