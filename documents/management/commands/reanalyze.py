"""`python manage.py reanalyze`: queue documents for analysis again, e.g. after an upgrade.

The index compares documents of one feature model only (`model_version`: tokenizer, IDF list,
hashing), so after an upgrade that changes it the documents analysed before are left out of
every check until they are analysed again. `make run` calls this command at every start
(with `--unfinished`: documents and collection deletions whose task the broker lost are
queued again too); the worker then does the work in the background (progress on the
collection pages).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents import selectors, services, signals
from documents.bulk import jobs as imports
from documents.models import Collection, Document


class Command(BaseCommand):
    help = (
        "Queue the documents analysed with an older feature model (or --all processed "
        "documents) for the whole pipeline again; the Celery worker does the work."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--all", action="store_true",
            help="every processed document (failed ones included), not only the stale ones",
        )  # fmt: skip
        parser.add_argument(
            "--collection", type=int, action="append", default=None, metavar="ID",
            help="only this collection (repeatable)",
        )  # fmt: skip
        parser.add_argument(
            "--unfinished", action="store_true",
            help="also queue again the documents left queued or processing whose message the "
            "broker lost, and unfinished collection deletions (run it while no worker runs: "
            "make run does, before starting one)",
        )  # fmt: skip
        parser.add_argument(
            "--dry-run", action="store_true", help="count the documents, queue nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        collections = options["collection"]
        if collections is not None:
            missing = set(collections) - set(
                Collection.objects.filter(id__in=collections).values_list("id", flat=True)
            )
            if missing:
                raise CommandError(f"No collection with id {', '.join(map(str, sorted(missing)))}.")
        if options["unfinished"] and not options["dry_run"]:
            resumed = services.documents_resume()
            self.stdout.write(
                f"Queued {resumed} unfinished document(s) whose message the broker had lost."
                if resumed
                else "No unfinished document lost its message."
            )
            deleting = services.collections_delete_resume()
            if deleting:
                self.stdout.write(f"Queued the deletion of {deleting} collection(s) again.")
            unfinished = imports.imports_resume()
            if unfinished:
                self.stdout.write(f"Queued {unfinished} unfinished archive import(s) again.")
            for _, line in signals.unfinished_resume.send(sender=Document):
                if line:
                    self.stdout.write(line)
        if options["all"]:
            documents = Document.objects.filter(collection__deleting=False)
            if collections is not None:
                documents = documents.filter(collection_id__in=collections)
            what = "processed document(s)"
        else:
            documents = selectors.documents_stale(collections=collections)  # type: ignore[arg-type]
            what = "document(s) analysed with another feature model than the current one"
        self.stdout.write(f"Current feature model: {selectors.current_model_version()}")
        if options["dry_run"]:
            count = documents.filter(
                status__in=[Document.Status.DONE, Document.Status.FAILED]
            ).count()
            self.stdout.write(f"{count} {what} would be queued.")
            return
        count = services.documents_reanalyze(documents=documents)
        if count:
            self.stdout.write(f"Queued {count} {what} for analysis again.")
        else:
            self.stdout.write(f"Nothing to re-analyse: no {what}.")
