"""Loading a large archive at once (`manage.py import_archive`, docs/operations.md).

An upload is processed one document at a time: a Celery task reads, analyses, indexes and
checks it, with a commit per progress step (dozens of statements per document) — right
for a batch of essays, hours for 100,000 published articles. An import is the bulk path:

- files come from folders (recursively) and ZIP batches (the upload's limits and skip rules);
- worker processes extract and analyse them (`processes`, one per core by default);
- each chunk of documents is stored in one transaction: the originals in the media storage,
  the Document rows (done, with text and sentences), and their postings with one COPY
  (`PostgresSentenceIndex.add_many`, the path the benchmark's ingest measures) while the
  workers read the next chunk;
- HTML pages learn their site's template as uploads do (from the site's pages already stored
  and those of the chunk); pages stored before their site's template was known are queued
  for the pipeline again, as uploads' are;
- a file whose content (sha256) the collection already holds is skipped, so an interrupted
  import is finished by running the same command again;
- unreadable files become failed documents with the reason, as uploads do; imported documents
  join the archive's latest near-duplicate runs, if it has any, as processed uploads do;
- the imported documents are NOT checked against each other: an archive is what others are
  checked against. Their similarity stays empty and a note says so; `check=True` (or "Check
  every document again" on the collection) queues those checks on the bulk queue.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import posixpath
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from multiprocessing.pool import AsyncResult, Pool
from pathlib import Path

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import connection, transaction

from detection import DetectionError, DocumentAnalysis, analyze
from detection.detector import warm_up
from documents import boilerplate, selectors, services, signals
from documents.detector_config import detector_config
from documents.index.rows import rows_copy
from documents.index.store import PostgresSentenceIndex
from documents.models import Collection, Document
from documents.reading import ReadText, UnreadableFile, read_text
from extraction import ArchiveMember, ExtractionError, iter_archive
from extraction.errors import size_text
from extraction.formats import resolve as resolve_format

CHUNK = 200  # documents per transaction (and per round of the worker processes)
CHUNK_BYTES = 64 * 1024 * 1024  # ... or fewer documents, once their files hold this much
AHEAD = 2  # chunks given to the workers before the one being stored is written
NOT_CHECKED = (
    "Imported in bulk with the archive: not checked against the other documents of the "
    "archive; \u201cCheck every document again\u201d checks them."
)
_LOCK_SPACE = 0x1A7C  # pg_advisory_lock(space, collection id): one import per archive at a time
_IGNORED = frozenset({".ds_store", "thumbs.db", "desktop.ini"})


@dataclass(frozen=True)
class ImportFile:
    """One file to import: `path` names it for the user (a ZIP member as "batch.zip:dir/a.txt")."""

    path: str
    filename: str
    folder: str
    data: bytes


@dataclass(frozen=True)
class SkippedFile:
    path: str
    reason: str


@dataclass
class ImportReport:
    """What an import did, so far (handed to the progress callback after every chunk)."""

    files: int = 0  # files read, skipped ones included
    imported: int = 0  # documents stored as done
    failed: list[tuple[str, str]] = field(default_factory=list)  # stored as failed: path, why
    skipped: list[tuple[str, str]] = field(default_factory=list)  # not stored: path, why
    duplicates: int = 0  # content already in the collection (or earlier in this import)
    postings: int = 0
    megabytes: float = 0.0  # of the files stored (10^6 bytes)
    seconds: float = 0.0
    requeued: int = 0  # pages stored before their site's template was known, queued again
    queued_checks: int = 0
    document_ids: list[int] = field(default_factory=list)

    @property
    def documents_per_second(self) -> float:
        return (self.imported + len(self.failed)) / self.seconds if self.seconds else 0.0


@dataclass(frozen=True)
class _Read:
    """What a worker made of one file: where it stored the original, the page (or why there
    is none) and, unless the page waits for its site's template, its analysis."""

    original: str
    error: str = ""
    read: ReadText | None = None
    site: str = ""
    analysis: DocumentAnalysis | None = None


@dataclass(frozen=True)
class _Ready:
    file: ImportFile
    checksum: str
    original: str
    error: str = ""
    page: boilerplate.Page | None = None
    analysis: DocumentAnalysis | None = None


def import_files(paths: Iterable[Path]) -> Iterator[ImportFile | SkippedFile]:
    """The files under `paths` (folders recursively, in name order; ZIP batches member by
    member), with the folder each comes from. Hidden files and folders are passed over."""
    for root in paths:
        if root.is_dir():
            for path in sorted(root.rglob("*")):
                relative = path.relative_to(root)
                if path.is_file() and not _ignored(relative):
                    yield from _file(path, relative.parent.as_posix().strip("."))
        else:
            yield from _file(root, "")


def _ignored(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts) or relative.name.lower() in _IGNORED


def _file(path: Path, folder: str) -> Iterator[ImportFile | SkippedFile]:
    shown, name, folder = _text(str(path)), _text(path.name), _text(folder)
    try:
        data = path.read_bytes()
    except OSError as error:
        yield SkippedFile(shown, error.strerror or str(error))
        return
    yield from file_items(shown, name, folder, data)


def file_items(
    shown: str, name: str, folder: str, data: bytes
) -> Iterator[ImportFile | SkippedFile]:
    """One file's items: itself, or a ZIP batch's members (`shown` names it for people)."""
    if not services.is_batch(name):
        yield ImportFile(shown, name, folder, data)
        return
    try:
        for member in iter_archive(name, data):
            where = f"{shown}:{member.path}"
            if isinstance(member, ArchiveMember):
                inside = posixpath.join(folder, member.folder).strip("/")
                yield ImportFile(where, posixpath.basename(member.path), inside, member.data)
            else:
                yield SkippedFile(where, member.reason.removesuffix(": skipped"))
    except ExtractionError as error:
        yield SkippedFile(shown, str(error))


def _text(name: str) -> str:
    """A file system name as text the database takes: bytes that are not UTF-8 (Python keeps
    them as lone surrogates) become U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def archive_import(
    collection: Collection,
    files: Iterable[ImportFile | SkippedFile],
    *,
    processes: int = 0,
    chunk: int = CHUNK,
    check: bool = False,
    progress: Callable[[ImportReport], None] | None = None,
) -> ImportReport:
    """Import `files` into the archive `collection` (see the module's docstring).

    `processes`: worker processes for extraction and analysis (0: one per core; 1: in this
    process). Raises services.UploadError for a collection that is not an archive or is being
    deleted."""
    if collection.kind != Collection.Kind.ARCHIVE:
        raise services.UploadError(
            f"{collection.name!r} is an assignment: each of its documents is checked when "
            "it is uploaded. Import into an archive."
        )
    with import_lock(collection.id):
        return _import(collection, files, processes, chunk, check, progress)


@contextmanager
def import_lock(collection_id: int, *, wait: bool = True) -> Iterator[bool]:
    """One import into an archive at a time: two at once would each store what the other is
    storing (the checksums are compared before the chunk is written). A session advisory lock,
    so it spans the import's transactions; taken again by the same session, it is held until
    released as often. Yields whether it is held: with `wait=False` it is not when another
    import holds it."""
    function = "pg_advisory_lock" if wait else "pg_try_advisory_lock"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s, %s::int)", [_LOCK_SPACE, collection_id])
        held = wait or bool(cursor.fetchone()[0])
    try:
        yield held
    finally:
        if held:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_advisory_unlock(%s, %s::int)", [_LOCK_SPACE, collection_id]
                )


def _import(
    collection: Collection,
    files: Iterable[ImportFile | SkippedFile],
    processes: int,
    chunk: int,
    check: bool,
    progress: Callable[[ImportReport], None] | None,
) -> ImportReport:
    report = ImportReport()
    started = time.perf_counter()
    processes = processes or os.cpu_count() or 1
    pool = _pool(processes) if processes > 1 else None
    seen: set[str] = set()
    templates: dict[str, frozenset[int]] = {}  # each site's template as last learned here
    try:
        batches = _batches(files, chunk, collection, seen, report)
        # The workers read up to AHEAD chunks while this process stores one.
        pending = deque(_read_async(pool, batch) for batch in islice(batches, AHEAD))
        while pending:
            ready = _finish(pool, collection, *pending.popleft())
            pending.extend(_read_async(pool, batch) for batch in islice(batches, 1))
            _store(collection, ready, report, templates)
            report.seconds = time.perf_counter() - started
            if progress is not None:
                progress(report)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    if check and report.document_ids:
        report.queued_checks = services.documents_reanalyze(
            documents=Document.objects.filter(id__in=report.document_ids),
            collection_id=collection.id,
        )
    report.seconds = time.perf_counter() - started
    return report


def _pool(processes: int) -> Pool:
    """Forked workers set up for analysis as a Celery worker is (segmenter and Punkt loaded,
    not what only checks need). They never touch the database: the parent's connection they
    inherit is left alone (a forked pool worker ends with os._exit, which runs no finaliser
    that could close it)."""
    return multiprocessing.get_context("fork").Pool(
        processes, initializer=partial(warm_up, detector_config(), checks=False)
    )


def _batches(
    files: Iterable[ImportFile | SkippedFile],
    size: int,
    collection: Collection,
    seen: set[str],
    report: ImportReport,
) -> Iterator[list[tuple[ImportFile, str]]]:
    """Chunks of up to `size` new files (and about CHUNK_BYTES) with their checksums; skipped
    files and content the collection already holds are counted in `report` on the way."""
    iterator = iter(files)
    while True:
        window = _window(iterator, size)
        if not window:
            return
        report.files += len(window)
        batch = []
        for item in window:
            if isinstance(item, SkippedFile):
                report.skipped.append((item.path, item.reason))
            elif len(item.data) > settings.MAX_UPLOAD_BYTES:
                limit = size_text(settings.MAX_UPLOAD_BYTES)
                report.skipped.append((item.path, f"{size_text(len(item.data))} > {limit}"))
            elif not item.data:
                report.skipped.append((item.path, "empty"))
            else:
                batch.append((item, hashlib.sha256(item.data).hexdigest()))
        held = set(
            Document.objects.filter(
                collection=collection, checksum__in=[checksum for _, checksum in batch]
            ).values_list("checksum", flat=True)
        )
        new = []
        for item, checksum in batch:
            if checksum in held or checksum in seen:
                report.duplicates += 1
            else:
                seen.add(checksum)
                new.append((item, checksum))
        if new:
            yield new


def _window(
    iterator: Iterator[ImportFile | SkippedFile], size: int
) -> list[ImportFile | SkippedFile]:
    """The next `size` items, fewer once their files hold CHUNK_BYTES (memory stays bounded
    with large files: AHEAD + 1 chunks are held at once)."""
    window: list[ImportFile | SkippedFile] = []
    held = 0
    for item in iterator:
        window.append(item)
        held += len(item.data) if isinstance(item, ImportFile) else 0
        if len(window) >= size or held >= CHUNK_BYTES:
            break
    return window


_Pending = tuple[list[tuple[ImportFile, str]], "AsyncResult[list[_Read]] | list[_Read]"]


def _read_async(pool: Pool | None, batch: list[tuple[ImportFile, str]]) -> _Pending:
    work = [(item.filename, item.folder, item.data) for item, _ in batch]
    if pool is None:
        return batch, [_read(w) for w in work]
    return batch, pool.map_async(_read, work, chunksize=8)


def _read(work: tuple[str, str, bytes]) -> _Read:
    """In a worker: the original stored (as an upload's: the same storage and folders), the
    file's text and site, analysed unless its site's template must be learned first (HTML
    pages that know their site). A file that fails in any way fails alone, as an upload
    does (`services.document_process`); only the storage failing stops the import."""
    filename, folder, data = work
    field = Document._meta.get_field("original")
    # upload_to is a string: the instance is not read (the stubs require a model).
    name = field.generate_filename(None, filename)  # type: ignore[arg-type]
    original = field.storage.save(name, ContentFile(data))
    try:
        resolve_format(filename, data)
        read = read_text(filename, data)
        site = boilerplate.page_site(data, read.format, folder)
        if site:
            return _Read(original, read=read, site=site)
        analysis = _analysed(read.text)
        if isinstance(analysis, str):
            return _Read(original, error=analysis)
        return _Read(original, read=read, analysis=analysis)
    except ExtractionError as error:
        return _Read(original, error=f"{filename}: {error}.")
    except UnreadableFile as error:
        return _Read(original, error=str(error))
    except Exception as error:  # noqa: BLE001 - stored on the document, as uploads do
        return _Read(original, error=_failure(filename, error))


def _analysed(text: str) -> DocumentAnalysis | str:
    try:
        return analyze(text, detector_config())
    except DetectionError as error:
        return str(error)
    except Exception as error:  # noqa: BLE001 - stored on the document, as uploads do
        return _failure("", error)


def _failure(filename: str, error: Exception) -> str:
    """The message of an unexpected failure, worded as `services.document_process` words it."""
    message = f"Processing failed ({type(error).__name__}: {error})."
    return f"{filename}: {message}" if filename else message


def _finish(
    pool: Pool | None,
    collection: Collection,
    batch: list[tuple[ImportFile, str]],
    reads: AsyncResult[list[_Read]] | list[_Read],
) -> list[_Ready]:
    """The chunk's pages, web pages without their site's template (learned from this chunk's
    pages of the site and the stored ones) and analysed in a second round of the workers."""
    results = reads if isinstance(reads, list) else reads.get()
    by_site: dict[str, list[int]] = {}
    for position, result in enumerate(results):
        if result.site:
            by_site.setdefault(result.site, []).append(position)
    pages: dict[int, boilerplate.Page | str] = {}
    for site, positions in by_site.items():
        texts = [results[p].read.text for p in positions]  # type: ignore[union-attr]
        template = boilerplate.site_template(collection.id, site, texts)
        for position in positions:
            filename = batch[position][0].filename
            try:
                pages[position] = boilerplate.page_stripped(results[position].read, site, template)  # type: ignore[arg-type]
            except UnreadableFile as error:
                pages[position] = f"{filename}: {error}"
    waiting = [p for p, page in pages.items() if isinstance(page, boilerplate.Page)]
    texts = [pages[p].text for p in waiting]  # type: ignore[union-attr]
    # Behind the next chunk's first round in the workers' queue (it was handed out already).
    analysed = dict(
        zip(waiting, pool.map(_analysed, texts) if pool else map(_analysed, texts), strict=True)
    )
    ready = []
    for position, ((item, checksum), result) in enumerate(zip(batch, results, strict=True)):
        page = pages.get(position)
        analysis = analysed.get(position, result.analysis)
        if result.error or isinstance(page, str) or isinstance(analysis, str):
            failure = result.error or (page if isinstance(page, str) else str(analysis))
            ready.append(_Ready(item, checksum, result.original, error=failure))
            continue
        if page is None:
            read = result.read
            page = boilerplate.Page(read.text, read.warnings, "", (), None)  # type: ignore[union-attr]
        ready.append(_Ready(item, checksum, result.original, page=page, analysis=analysis))
    return ready


def _store(
    collection: Collection,
    ready: Sequence[_Ready],
    report: ImportReport,
    templates: dict[str, frozenset[int]],
) -> None:
    """One transaction: Document rows (one COPY), postings (one COPY); then, for the sites
    whose template this chunk learned anew (`templates`: as learned before), the pages stored
    without it are queued again; with `stream` the documents are queued for the collection's
    near-duplicate runs."""
    with transaction.atomic():
        services.collection_open(collection)
        xid = _transaction_id()
        documents = [_document(collection, r, xid) for r in ready]
        rows_copy(documents)
        done = [(d.id, r.analysis) for d, r in zip(documents, ready, strict=True) if r.analysis]
        if done:
            index = PostgresSentenceIndex(model_version=done[0][1].model_version)
            report.postings += index.add_many(done)
    ids = [d.id for d in documents]
    report.document_ids += ids
    report.imported += len(done)
    report.failed += [(r.file.path, r.error) for r in ready if r.error]
    report.megabytes += sum(len(r.file.data) for r in ready) / 1e6
    learned = {r.page.site: r.page.template for r in ready if r.page and r.page.template}
    for site, template in learned.items():
        if templates.get(site) == template.keys:
            continue  # the pages stored since were stripped with this very template
        templates[site] = template.keys
        for stale in boilerplate.stale_pages(collection.id, site, template, exclude=ids):
            services.document_recheck(document=stale)
            report.requeued += 1
    # As a processed upload does: listeners (near-duplicate runs) learn of the new documents.
    signals.documents_imported.send(
        sender=Document, collection_id=collection.id, document_ids=[i for i, _ in done]
    )


def _transaction_id() -> int:
    """This transaction's id, as `Document.indexed_xid` records it (services._index_replace)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id()::text::bigint")
        return int(cursor.fetchone()[0])


def _document(collection: Collection, ready: _Ready, xid: int) -> Document:
    item, page, analysis = ready.file, ready.page, ready.analysis
    document = Document(
        collection=collection,
        filename=item.filename[:255],
        folder=item.folder[:500],
        size=len(item.data),
        checksum=ready.checksum,
        progress=100,
    )
    if page is None or analysis is None:
        document.status, document.error = Document.Status.FAILED, ready.error[:2000]
    else:
        for name, value in services.analysis_fields(analysis).items():
            setattr(document, name, value)
        document.status = Document.Status.DONE
        document.text = page.text
        document.warnings = [*page.warnings, NOT_CHECKED]
        document.site = page.site
        document.boilerplate_lines = list(page.removed)
        for name, keys in boilerplate.page_keys(page).items():
            setattr(document, name, keys)
        document.indexed_xid = xid
    document.original.name = ready.original
    return document


def index_refresh_after_import(document_ids: Sequence[int]) -> bool:
    """What a bulk load of `document_ids` leaves undone: VACUUM (ANALYZE) of the postings, so
    lookups are Index Only Scans at once, then their heavy features recorded (no check met
    them, `PostgresSentenceIndex.record_heavy_features`; after the VACUUM, so its scan needs
    no heap visits) and the df table vacuumed. Returns False when the caller is inside a
    transaction, which VACUUM cannot run in (the features are recorded; autovacuum will
    vacuum)."""
    index = PostgresSentenceIndex(model_version=selectors.current_model_version())
    vacuums = not connection.in_atomic_block
    if vacuums:
        index.vacuum()
    index.record_heavy_features(document_ids)
    if vacuums:
        index.vacuum(postings=False)
    return vacuums
