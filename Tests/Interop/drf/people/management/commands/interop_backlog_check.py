"""Check that the server `manage.py runserver` would start keeps a burst of new connections waiting.

The CRUDKit interop suite starts its ~33 tests at once, and each one's first request opens a new connection.
Django's own runserver listens with a backlog of 10 (`WSGIServer.request_queue_size`): while its single
accepting thread is busy (a cold server importing views, a loaded CI machine), the kernel's queues overflow,
it answers new connections with SYN cookies and then resets some of them (`Recv failure: Connection reset by
peer`, URLError -1005, on a POST that was never seen by Django). See Tests/Interop/drf/NOTES.md.

This command builds the server class that `runserver` uses, binds it to a free port and never accepts, as a
server too busy to accept would; it then opens BURST connections and accepts whatever the kernel queued.
Exit status 0 when every connection was queued, 1 otherwise. No sleeps: it waits on the sockets, at most
--timeout seconds.
"""
import select
import socket
import socketserver
import time

from django.core.management import get_commands, load_command_class
from django.core.management.base import BaseCommand, CommandError
from django.core.servers.basehttp import WSGIRequestHandler


class Command(BaseCommand):
    help = "Check that runserver's listen backlog holds a burst of new connections (exit 1 if not)."

    def add_arguments(self, parser):
        parser.add_argument("--burst", type=int, default=64, help="connections opened at once (default 64)")
        parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for them (default 5)")

    def handle(self, *args, **options):
        burst, timeout = options["burst"], options["timeout"]
        runserver = load_command_class(get_commands()["runserver"], "runserver")
        # As django.core.servers.basehttp.run() makes it for a threaded runserver.
        server_class = type("WSGIServer", (socketserver.ThreadingMixIn, runserver.server_cls), {})
        server = server_class(("127.0.0.1", 0), WSGIRequestHandler)
        clients = []
        try:
            server.socket.setblocking(False)
            port = server.server_address[1]
            for _ in range(burst):
                client = socket.socket()
                client.setblocking(False)
                client.connect_ex(("127.0.0.1", port))
                clients.append(client)
            # Wait until every handshake completed (writable) or the time is up; SYNs past a full queue are
            # dropped by the kernel, so those clients stay pending.
            pending = list(clients)
            deadline = time.monotonic() + timeout
            while pending and time.monotonic() < deadline:
                _, writable, _ = select.select([], pending, [], max(0.0, deadline - time.monotonic()))
                pending = [c for c in pending if c not in writable]
            accepted = 0
            while True:
                try:
                    connection, _ = server.socket.accept()
                except BlockingIOError:
                    break
                connection.close()
                accepted += 1
        finally:
            for client in clients:
                client.close()
            server.server_close()
        name = f"{runserver.server_cls.__module__}.{runserver.server_cls.__qualname__}"
        message = (
            f"{name} (request_queue_size {runserver.server_cls.request_queue_size}) queued {accepted} of "
            f"{burst} connections opened at once while not accepting"
        )
        if accepted < burst:
            raise CommandError(message + ": the listen backlog is too small for the interop suite")
        self.stdout.write(message)
