#!/usr/bin/env python3
"""Smoke check of the CRUDKit interop server, standard library only.

Usage: CRUDKIT_DRF_URL=http://127.0.0.1:PORT CRUDKIT_DRF_TOKEN=... python3 smoke.py
(after `eval "$(.ci/interop-server.sh start)"`). Exits 1 on the first failed check.
"""
import json
import os
import sys
import urllib.error
import urllib.request
import uuid

BASE = os.environ.get("CRUDKIT_DRF_URL", "").rstrip("/")
TOKEN = os.environ.get("CRUDKIT_DRF_TOKEN", "")
TAG = uuid.uuid4().hex[:8]  # keeps the data of one run apart from earlier runs on the same server
passed = 0


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def call(method, path, body=None, token=None):
    """Sends one request; returns (status, headers, parsed JSON or None). Never follows redirects."""
    url = path if path.startswith("http") else BASE + path
    headers = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token is not None:
        headers["Authorization"] = "Token " + token
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with OPENER.open(request, timeout=10) as response:
            status, head, raw = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, head, raw = error.code, error.headers, error.read()
    parsed = None
    if raw and (head.get("Content-Type") or "").startswith("application/json"):
        parsed = json.loads(raw)
    return status, head, parsed


def check(condition, what, detail=None):
    global passed
    if not condition:
        print(f"FAIL - {what}" + (f": {detail!r}" if detail is not None else ""))
        sys.exit(1)
    passed += 1
    print(f"ok - {what}")


def main():
    if not BASE or not TOKEN:
        print("set CRUDKIT_DRF_URL and CRUDKIT_DRF_TOKEN (eval \"$(.ci/interop-server.sh start)\")")
        sys.exit(2)
    last = "Smoke" + TAG

    # create
    status, head, ada = call("POST", "/people/", {"first_name": "Ada", "last_name": last, "age": 36,
                                                  "email": "ada@example.com"})
    check(status == 201, "POST /people/ -> 201", status)
    check(head.get("Content-Type") == "application/json", "201 Content-Type application/json", head.get("Content-Type"))
    check(head.get("Location") is None, "201 has no Location (serializer has no url field)")
    check(isinstance(ada.get("id"), int) and ada["favorite_color"] is None and ada["age"] == 36,
          "201 body is the created object with its id", ada)
    check(ada["created_at"].endswith("Z") and "T" in ada["created_at"], "created_at is ISO 8601 UTC with Z",
          ada["created_at"])
    pid = ada["id"]

    # read
    status, head, read = call("GET", f"/people/{pid}/")
    check(status == 200 and read == ada, "GET /people/{id}/ -> 200, same object", (status, read))
    check(head.get("Vary") == "Accept" and "PATCH" in head.get("Allow", ""), "Vary: Accept and Allow on member",
          (head.get("Vary"), head.get("Allow")))

    # list across pages
    for i in range(6):
        status, _, _ = call("POST", "/people/", {"first_name": f"P{i}", "last_name": last, "age": 10 * i})
        check(status == 201, f"POST extra person {i} -> 201", status)
    status, _, page = call("GET", f"/people/?last_name={last}&page_size=3")
    check(status == 200 and set(page) == {"count", "next", "previous", "results"}, "list envelope keys", page)
    check(page["count"] == 7 and len(page["results"]) == 3 and page["previous"] is None, "first page: 3 of 7", page)
    check(page["next"].startswith(BASE + "/people/?") and "page=2" in page["next"] and f"last_name={last}" in page["next"],
          "next is an absolute URL keeping the filter", page["next"])
    seen, url, pages = [], f"/people/?last_name={last}&page_size=3", 0
    while url:
        status, _, page = call("GET", url)
        check(status == 200, f"GET page {pages + 1} -> 200", status)
        seen += [p["id"] for p in page["results"]]
        url, pages = page["next"], pages + 1
    check(pages == 3 and len(seen) == 7 and len(set(seen)) == 7 and seen == sorted(seen),
          "following next visits 3 pages, 7 distinct people in id order", (pages, seen))
    status, _, page = call("GET", f"/people/?last_name={last}&age__gte=30&page_size=100")
    check(status == 200 and sorted(p["age"] for p in page["results"]) == [30, 36, 40, 50], "filter age__gte", page)
    status, _, body = call("GET", "/people/?page=999")
    check(status == 404 and body == {"detail": "Invalid page."}, "page past the end -> 404 Invalid page.", body)

    # PUT and PATCH
    put = {"first_name": "Ada", "last_name": last, "age": 37, "email": "ada@example.com", "favorite_color": "green"}
    status, _, body = call("PUT", f"/people/{pid}/", put)
    check(status == 200 and body["age"] == 37 and body["favorite_color"] == "green"
          and body["created_at"] == ada["created_at"], "PUT -> 200 with the full new state", body)
    status, _, body = call("PUT", f"/people/{pid}/", {"first_name": "Ada"})
    check(status == 400 and body == {"last_name": ["This field is required."]}, "PUT missing field -> 400", body)
    status, _, body = call("PATCH", f"/people/{pid}/", {"favorite_color": None, "age": 38})
    check(status == 200 and body["favorite_color"] is None and body["age"] == 38 and body["first_name"] == "Ada",
          "PATCH with null on a nullable field -> 200, null stored, others kept", body)
    status, _, body = call("PATCH", f"/people/{pid}/", {})
    check(status == 200 and body["age"] == 38, "PATCH {} -> 200 unchanged", body)

    # validation errors
    status, head, body = call("POST", "/people/", {"first_name": "Neg", "last_name": last, "age": -1})
    check(status == 400 and body == {"age": ["Ensure this value is greater than or equal to 0."]},
          "negative age -> 400 {age: [...]}", body)
    check(head.get("Content-Type") == "application/json", "400 Content-Type application/json")
    status, _, body = call("PATCH", f"/people/{pid}/", {"age": -5})
    check(status == 400 and list(body) == ["age"], "PATCH negative age -> 400 {age: [...]}", body)
    status, _, body = call("POST", "/people/", {"first_name": "Same", "last_name": "Same"})
    check(status == 400 and body == {"non_field_errors": ["first_name and last_name must differ."]},
          "first_name == last_name -> 400 {non_field_errors: [...]}", body)
    status, _, body = call("PATCH", f"/people/{pid}/", {"first_name": last})
    check(status == 400 and list(body) == ["non_field_errors"], "PATCH making names equal -> non_field_errors", body)
    status, _, body = call("PATCH", f"/people/{pid}/", {"first_name": None})
    check(status == 400 and body == {"first_name": ["This field may not be null."]}, "null on non-nullable -> 400", body)

    # trailing slash is required: without it Django answers 301 and does nothing
    status, head, _ = call("POST", "/people", {"first_name": "No", "last_name": "Slash"})
    check(status == 301 and head.get("Location") == "/people/", "POST /people (no slash) -> 301 Location /people/",
          (status, head.get("Location")))
    status, head, _ = call("DELETE", f"/people/{pid}")
    check(status == 301 and head.get("Location") == f"/people/{pid}/", "DELETE without slash -> 301, nothing deleted",
          (status, head.get("Location")))

    # nested posts
    status, _, post = call("POST", f"/people/{pid}/posts/", {"title": "Hello", "body": "World"})
    check(status == 201 and post["person"] == pid and post["title"] == "Hello", "POST nested post -> 201", post)
    status, _, post2 = call("POST", f"/people/{pid}/posts/", {"title": "Second", "person": 999999})
    check(status == 201 and post2["person"] == pid, "nested create ignores a person in the body", post2)
    status, _, page = call("GET", f"/people/{pid}/posts/")
    check(status == 200 and [p["id"] for p in page["results"]] == [post["id"], post2["id"]], "nested list", page)
    status, _, body = call("GET", f"/people/{pid}/posts/{post['id']}/")
    check(status == 200 and body == post, "nested read", body)
    status, _, body = call("PATCH", f"/people/{pid}/posts/{post['id']}/", {"body": "Edited"})
    check(status == 200 and body["body"] == "Edited", "nested PATCH", body)
    status, _, body = call("PUT", f"/people/{pid}/posts/{post['id']}/", {"title": "Again", "body": ""})
    check(status == 200 and body["title"] == "Again", "nested PUT", body)
    status, _, body = call("POST", f"/people/{pid}/posts/", {"body": "no title"})
    check(status == 400 and body == {"title": ["This field is required."]}, "nested 400", body)
    status, _, _ = call("DELETE", f"/people/{pid}/posts/{post2['id']}/")
    check(status == 204, "nested DELETE -> 204", status)
    status, _, body = call("GET", f"/people/{pid}/posts/{post2['id']}/")
    check(status == 404 and body == {"detail": "No Post matches the given query."}, "nested read after delete", body)
    status, _, body = call("GET", "/people/999999/posts/")
    check(status == 404 and body == {"detail": "No Person matches the given query."}, "unknown parent -> 404", body)

    # token auth
    status, head, body = call("GET", "/secure-people/")
    check(status == 401 and head.get("WWW-Authenticate") == "Token"
          and body == {"detail": "Authentication credentials were not provided."}, "no token -> 401", (status, body))
    status, head, body = call("GET", "/secure-people/", token="0" * 40)
    check(status == 401 and head.get("WWW-Authenticate") == "Token" and body == {"detail": "Invalid token."},
          "wrong token -> 401 Invalid token.", (status, body))
    status, _, body = call("GET", f"/secure-people/{pid}/", token=TOKEN)
    check(status == 200 and body["id"] == pid, "right token -> 200", (status, body))
    status, _, body = call("POST", "/secure-people/", {"first_name": "Sec", "last_name": last}, token=TOKEN)
    check(status == 201, "right token create -> 201", (status, body))
    status, _, _ = call("DELETE", f"/secure-people/{body['id']}/", token=TOKEN)
    check(status == 204, "right token delete -> 204", status)

    # delete, then 404
    status, head, body = call("DELETE", f"/people/{pid}/")
    check(status == 204 and body is None and head.get("Content-Length") == "0" and head.get("Content-Type") is None,
          "DELETE -> 204, empty body, no Content-Type", (status, dict(head)))
    status, _, body = call("GET", f"/people/{pid}/")
    check(status == 404 and body == {"detail": "No Person matches the given query."}, "GET after delete -> 404", body)
    status, _, body = call("DELETE", f"/people/{pid}/")
    check(status == 404, "DELETE again -> 404", status)
    status, _, body = call("GET", f"/people/{pid}/posts/")
    check(status == 404, "posts of a deleted person -> 404 (cascade)", status)

    print(f"smoke: all {passed} checks passed against {BASE}")


if __name__ == "__main__":
    main()
