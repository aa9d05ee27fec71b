"""WSGI entry point of the CRUDKit interop server."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "interop.settings")
application = get_wsgi_application()
