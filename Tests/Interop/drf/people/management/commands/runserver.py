"""`manage.py runserver` with a listen backlog that holds the CRUDKit interop suite's burst of connections.

Django's runserver listens with a backlog of 10 (`django.core.servers.basehttp.WSGIServer.request_queue_size`).
The interop suite starts its ~33 tests at once and each one's first request opens a new connection; while the
server's single accepting thread is busy (a cold server, a loaded 2-core CI machine), more than 10 wait, the
kernel falls back to SYN cookies and then resets some connections whose request was already sent: the client
sees "Recv failure: Connection reset by peer" (URLError -1005) on a POST that Django never saw, and the server
log shows nothing. A fresh connection is never retried by libcurl (and a POST must not be), so the suite failed.

This command is Django's own runserver (same options, same request handling, same keep-alive behaviour) with a
backlog of 1024; the kernel caps it at `net.core.somaxconn` (4096 on current Linux, 128 or more on macOS).
`manage.py interop_backlog_check` checks it; `.ci/interop-server.sh start` runs that check first.
"""
from django.core.management.commands.runserver import Command as DjangoRunserverCommand
from django.core.servers.basehttp import WSGIServer


class InteropWSGIServer(WSGIServer):
    """Django's runserver WSGI server, listening with a backlog of 1024 instead of 10."""

    request_queue_size = 1024


class Command(DjangoRunserverCommand):
    server_cls = InteropWSGIServer
