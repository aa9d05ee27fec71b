"""A small FastAPI app for crudkit-openapi's CI (.ci/openapi.sh): people with nested posts, in memory.

/people (offset/limit pages with a Link header and x-total-count), /people/{person_id} (GET, PUT, PATCH, DELETE),
POST /people/{person_id}/activate, /people/{person_id}/posts and /people/{person_id}/posts/{post_id}.
Its schema is FastAPI's own /openapi.json (OpenAPI 3.1). Only for tests on loopback.
"""
import threading
from datetime import date, datetime, timezone
from decimal import Decimal
from enum import Enum
from typing import Optional
from uuid import UUID, uuid4

from fastapi import FastAPI, HTTPException, Request, Response
from pydantic import BaseModel, Field

app = FastAPI(title="CRUDKit FastAPI interop", version="1.0.0")
lock = threading.Lock()
people: dict[int, dict] = {}
posts: dict[int, dict] = {}
counter = {"person": 0, "post": 0}


class Color(str, Enum):
    red = "red"
    green = "green"
    blue = "blue"


class PersonIn(BaseModel):
    """What a client sends to create or replace a person."""

    first_name: str = Field(min_length=1, max_length=100)
    last_name: str = Field(min_length=1, max_length=100)
    age: Optional[int] = Field(default=None, ge=0)
    nickname: Optional[str] = None
    favorite_color: Optional[Color] = None
    birthday: Optional[date] = None
    balance: Optional[Decimal] = None


class PersonPatch(BaseModel):
    first_name: Optional[str] = Field(default=None, min_length=1, max_length=100)
    last_name: Optional[str] = Field(default=None, min_length=1, max_length=100)
    age: Optional[int] = Field(default=None, ge=0)
    nickname: Optional[str] = None
    favorite_color: Optional[Color] = None
    birthday: Optional[date] = None
    balance: Optional[Decimal] = None


class PersonOut(PersonIn):
    """A person as the server stores it."""

    id: int
    token: UUID
    created_at: datetime
    active: bool = False


class PostIn(BaseModel):
    title: str = Field(min_length=1)
    body: str = ""


class PostOut(PostIn):
    id: int
    person_id: int


def find(person_id: int) -> dict:
    person = people.get(person_id)
    if person is None:
        raise HTTPException(status_code=404, detail="Not found.")
    return person


@app.get("/people", response_model=list[PersonOut])
def list_people(request: Request, response: Response, offset: int = 0, limit: int = 5):
    with lock:
        everyone = sorted(people.values(), key=lambda p: p["id"])
    limit = max(1, min(limit, 100))
    page = everyone[offset : offset + limit]
    response.headers["x-total-count"] = str(len(everyone))
    if offset + limit < len(everyone):
        url = request.url.include_query_params(offset=offset + limit, limit=limit)
        response.headers["link"] = f'<{url}>; rel="next"'
    return page


@app.post("/people", response_model=PersonOut, status_code=201)
def create_person(body: PersonIn):
    with lock:
        counter["person"] += 1
        person = body.model_dump()
        person.update(id=counter["person"], token=uuid4(), created_at=datetime.now(timezone.utc), active=False)
        people[person["id"]] = person
    return person


@app.get("/people/{person_id}", response_model=PersonOut)
def read_person(person_id: int):
    return find(person_id)


@app.put("/people/{person_id}", response_model=PersonOut)
def replace_person(person_id: int, body: PersonIn):
    with lock:
        person = find(person_id)
        person.update(body.model_dump())
    return person


@app.patch("/people/{person_id}", response_model=PersonOut)
def update_person(person_id: int, body: PersonPatch):
    with lock:
        person = find(person_id)
        person.update(body.model_dump(exclude_unset=True))
    return person


@app.delete("/people/{person_id}", status_code=204)
def delete_person(person_id: int):
    with lock:
        find(person_id)
        del people[person_id]
    return Response(status_code=204)


@app.post("/people/{person_id}/activate", response_model=PersonOut)
def activate_person(person_id: int):
    """Marks a person active."""
    with lock:
        person = find(person_id)
        person["active"] = True
    return person


@app.get("/people/{person_id}/posts", response_model=list[PostOut])
def list_posts(person_id: int):
    find(person_id)
    return [post for post in posts.values() if post["person_id"] == person_id]


@app.post("/people/{person_id}/posts", response_model=PostOut, status_code=201)
def create_post(person_id: int, body: PostIn):
    with lock:
        find(person_id)
        counter["post"] += 1
        post = body.model_dump()
        post.update(id=counter["post"], person_id=person_id)
        posts[post["id"]] = post
    return post


@app.get("/people/{person_id}/posts/{post_id}", response_model=PostOut)
def read_post(person_id: int, post_id: int):
    post = posts.get(post_id)
    if post is None or post["person_id"] != person_id:
        raise HTTPException(status_code=404, detail="Not found.")
    return post
