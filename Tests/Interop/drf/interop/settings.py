"""Settings of the CRUDKit interop server: a small, conventional Django REST framework setup.

Only for tests on loopback: the secret key is public and the database is a throwaway SQLite file
whose path comes from CRUDKIT_DRF_DB (set by .ci/interop-server.sh to a file in a temporary directory).
"""
import os
import tempfile

SECRET_KEY = "crudkit-interop-tests-only-not-a-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "rest_framework",
    "rest_framework.authtoken",
    "people",
]

# No session or CSRF middleware: the API is used with JSON and tokens only. (DRF's views are CSRF-exempt
# anyway; CSRF would only be enforced for SessionAuthentication, which is not enabled.)
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
]

ROOT_URLCONF = "interop.urls"
WSGI_APPLICATION = "interop.wsgi.application"

# Templates are needed by DRF's browsable API renderer (kept, as in a default DRF project).
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]
STATIC_URL = "static/"

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("CRUDKIT_DRF_DB") or os.path.join(tempfile.gettempdir(), "crudkit-drf-interop.sqlite3"),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

REST_FRAMEWORK = {
    # Everything is open except the one token-protected endpoint, which sets its own classes.
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PAGINATION_CLASS": "people.pagination.PageNumberWithSizePagination",
    "PAGE_SIZE": 10,
}
