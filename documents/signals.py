"""What the documents app tells other apps, which connect in their `AppConfig.ready()`.

The documents app imports no other app: an app that follows documents (near-duplicate runs)
listens here instead of being called.
"""

from django.dispatch import Signal

# A document's processing is done and committed with this transaction; kwargs: document_id.
document_processed = Signal()

# Documents were stored by a bulk import into a collection; kwargs: collection_id, document_ids.
documents_imported = Signal()

# The periodic sweep asks every app to queue again its unfinished work that nobody holds a
# lease on (`core.lease`); receivers return how many they queued.
stale_requeue = Signal()

# Start-up asks every app to queue again the work whose message was lost; receivers return
# a line to print, or "" when there was nothing.
unfinished_resume = Signal()
