"""UI and JSON API URLs of near-duplicate detection (included at the site root)."""

urlpatterns: list = []
