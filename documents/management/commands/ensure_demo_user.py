"""Create the demo login (user `demo`, password `demo`) if it does not exist."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create user 'demo' with password 'demo' if missing, and print the login."

    def handle(self, *args: object, **options: object) -> None:
        users = get_user_model()
        user, created = users.objects.get_or_create(username="demo")
        if created:
            user.set_password("demo")
            user.save()
        if created:
            self.stdout.write("Created the demo login: username 'demo', password 'demo'")
        else:
            self.stdout.write("Demo login: username 'demo' (already existed; password unchanged)")
