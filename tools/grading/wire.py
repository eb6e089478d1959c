"""What crosses the pipe between the checker and the sandboxed kernel: JSON lines of data.

Both sides speak the same small protocol over two pipes, one JSON object per line:

    request  {"id": 7, "op": "call", "target": 3, "args": [...], "kwargs": {...}}
    reply    {"re": 7, "value": ...}   or   {"re": 7, "raised": ["ValueError", "message"]}

While a side waits for the reply to its request it serves the other side's requests, so a
learner's function can call a module the test handed it (a callback) and the test can call a
function the learner defined.

**Data** crosses as values: None, bools, ints, floats, complex numbers, strings, bytes, ``...``,
lists, tuples, dicts, sets, numpy arrays and scalars (numbers as raw bytes in base64 with their
dtype and shape), torch tensors (as arrays; they arrive as fresh tensors without gradients).
Subclasses cross as their base type: a ``float`` subclass whose ``==`` always says yes arrives
as the plain float it holds. **Everything else** crosses as a reference, ``{"$ref": ...}``,
which the receiving side turns into a proxy (see ``Link.share``). Nothing is pickled, and
decoding never calls code of the sending side: it builds plain values, arrays and proxies.
"""

from __future__ import annotations

import base64
import json
import math
import os
import select
import sys
import time

# Bound now, when the module is imported (in the kernel: before any cell runs), so that a
# submission that patches os.write or json.dumps changes nothing of how its answers travel.
_read, _write, _select = os.read, os.write, select.select
_dumps, _loads = json.dumps, json.loads

MAX_MESSAGE = 64 << 20   # bytes in one line: a bigger answer is refused, not read
MAX_DEPTH = 64           # nesting of lists, tuples and dicts


class Unsendable(Exception):
    """A value that is not data, on a side that sends only data."""


class ProtocolError(BaseException):
    """The other side sent something that is not a message of this protocol. A BaseException,
    like Gone and TimedOut: test code that catches Exception must not swallow it."""


class Gone(BaseException):
    """The other side closed the pipe (its process ended). A BaseException: test code that
    catches Exception must not swallow it."""


class TimedOut(BaseException):
    """No reply before the deadline."""


class Raised(Exception):
    """The other side raised while serving a request; ``kind`` is its exception's name."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


# ---------------------------------------------------------------------------------------------
# data


NUMERIC_KINDS = "biufc"   # bool, int, unsigned, float, complex: sent as raw bytes


def _array(a, share, depth) -> dict:
    import numpy as np

    a = np.array(a, copy=True, subok=False, order="C")   # (np.ascontiguousarray makes 0-d arrays 1-d)
    if a.dtype.fields is not None:
        raise Unsendable(f"a structured array ({a.dtype})")
    if a.dtype.kind in NUMERIC_KINDS:
        return {"dtype": a.dtype.str, "shape": list(a.shape), "data": base64.b64encode(a.tobytes()).decode()}
    if a.dtype.kind in "UO":
        return {"dtype": a.dtype.str, "shape": list(a.shape),
                "items": [encode(x, share, depth + 1) for x in a.ravel().tolist()]}
    raise Unsendable(f"an array of dtype {a.dtype}")


def encode(x, share, depth: int = 0):
    """``x`` as JSON-able data; ``share(obj)`` encodes what is not data (or raises Unsendable)."""
    if depth > MAX_DEPTH:
        raise Unsendable(f"a value nested more than {MAX_DEPTH} levels deep")
    np = sys.modules.get("numpy")
    torch = sys.modules.get("torch")
    if x is None or type(x) in (bool, str, int):
        return x
    if x is Ellipsis:
        return {"$ellipsis": 1}
    if np is not None and isinstance(x, np.ndarray):
        return {"$array": _array(x, share, depth)}
    if np is not None and isinstance(x, np.generic):
        a = _array(np.asarray(x), share, depth)
        return {"$scalar": a}
    if torch is not None and isinstance(x, torch.Tensor):
        t = torch.Tensor.detach(x).cpu()
        if t.dtype == torch.bfloat16:
            t = t.float()
        return {"$tensor": _array(t.resolve_conj().resolve_neg().numpy(), share, depth)}
    if isinstance(x, bool):
        return bool(x)
    if isinstance(x, int):
        return int.__int__(x)
    if isinstance(x, float):
        return float.__float__(x)
    if isinstance(x, complex):
        return {"$complex": [complex.real.__get__(x), complex.imag.__get__(x)]}
    if isinstance(x, str):
        return str.__str__(x)
    if isinstance(x, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(x)).decode()}
    if isinstance(x, list):
        return [encode(v, share, depth + 1) for v in list.__iter__(x)]
    if isinstance(x, tuple):
        return {"$tuple": [encode(v, share, depth + 1) for v in tuple.__iter__(x)]}
    if isinstance(x, dict):
        return {"$dict": [[encode(k, share, depth + 1), encode(v, share, depth + 1)] for k, v in dict.items(x)]}
    if isinstance(x, (set, frozenset)):
        return {"$set": [encode(v, share, depth + 1) for v in set.__iter__(set(x))]}
    return share(x)


def _decode_array(body, resolve, depth):
    import numpy as np

    if type(body) is not dict or type(body.get("dtype")) is not str or type(body.get("shape")) is not list:
        raise ProtocolError("an array without dtype and shape")
    shape = tuple(body["shape"])
    if not all(type(n) is int and 0 <= n for n in shape) or len(shape) > 32:
        raise ProtocolError(f"an array of shape {shape}")
    dtype = np.dtype(body["dtype"])
    if dtype.fields is not None or dtype.subdtype is not None:
        raise ProtocolError(f"an array of dtype {dtype}")
    if "data" in body:
        if dtype.kind not in NUMERIC_KINDS or type(body["data"]) is not str:
            raise ProtocolError(f"raw bytes for an array of dtype {dtype}")
        raw = base64.b64decode(body["data"], validate=True)
        if len(raw) != dtype.itemsize * math.prod(shape):
            raise ProtocolError(f"{len(raw)} bytes for an array of shape {shape} and dtype {dtype}")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if dtype.kind not in "UO" or type(body.get("items")) is not list or len(body["items"]) != math.prod(shape):
        raise ProtocolError(f"items for an array of dtype {dtype}")
    items = [decode(v, resolve, depth + 1) for v in body["items"]]
    out = np.empty(len(items), dtype=dtype)
    for i, v in enumerate(items):
        out[i] = v
    return out.reshape(shape)


def decode(v, resolve, depth: int = 0):
    """The value a message holds; ``resolve(ref)`` turns a reference into an object or a proxy."""
    if depth > MAX_DEPTH:
        raise ProtocolError("a value nested too deep")
    if v is None or type(v) in (bool, int, float, str):
        return v
    if type(v) is list:
        return [decode(e, resolve, depth + 1) for e in v]
    if type(v) is not dict or len(v) != 1:
        raise ProtocolError(f"not a value: {str(v)[:80]}")
    (tag, body), = v.items()
    if tag == "$tuple" and type(body) is list:
        return tuple(decode(e, resolve, depth + 1) for e in body)
    if tag == "$dict" and type(body) is list:
        try:
            return {decode(k, resolve, depth + 1): decode(x, resolve, depth + 1) for k, x in body}
        except (TypeError, ValueError) as e:
            raise ProtocolError(f"a dict that cannot be rebuilt ({e})") from None
    if tag == "$set" and type(body) is list:
        try:
            return {decode(e, resolve, depth + 1) for e in body}
        except TypeError as e:
            raise ProtocolError(f"a set that cannot be rebuilt ({e})") from None
    if tag == "$ellipsis":
        return Ellipsis
    if tag == "$complex" and type(body) is list and len(body) == 2 and all(type(n) in (int, float) for n in body):
        return complex(body[0], body[1])
    if tag == "$bytes" and type(body) is str:
        return base64.b64decode(body, validate=True)
    if tag == "$array":
        return _decode_array(body, resolve, depth)
    if tag == "$scalar":
        return _decode_array(body, resolve, depth)[()]
    if tag == "$tensor":
        import torch

        return torch.from_numpy(_decode_array(body, resolve, depth))
    if tag == "$ref" and type(body) is dict:
        return resolve(body)
    raise ProtocolError(f"an unknown value tag {tag!r}")


# ---------------------------------------------------------------------------------------------
# the link


class Proxy:
    """An object of the other side: calling it, or reading one of its attributes, is a request."""

    __slots__ = ("_link", "_ref")

    def __init__(self, link: "Link", ref: dict):
        object.__setattr__(self, "_link", link)
        object.__setattr__(self, "_ref", ref)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._link.request({"op": "getattr", "target": self._ref["id"], "name": name})

    def __setattr__(self, name, value):
        raise AttributeError(f"{self!r} cannot be changed from here")

    def __repr__(self) -> str:
        return f"<{self._ref.get('type', 'object')} of the {self._link.peer}>"


class CallableProxy(Proxy):
    __slots__ = ()

    def __call__(self, *args, **kwargs):
        return self._link.request({"op": "call", "target": self._ref["id"], "args": list(args), "kwargs": kwargs})


class Link:
    """One side of the pipe pair. ``serve(message)`` answers the other side's requests;
    ``share(obj)`` says how this side sends what is not data (a reference, or Unsendable)."""

    def __init__(self, read_fd: int, write_fd: int, side: str, peer: str, serve, share=None):
        self.read_fd, self.write_fd = read_fd, write_fd
        self.side, self.peer = side, peer
        self.serve = serve
        self.share_policy = share
        self.objects: dict[int, object] = {}    # references this side handed out: id -> object
        self.ids: dict[int, int] = {}           # id(object) -> reference id
        self.next_id = 0
        self.buffer = bytearray()
        self.deadline: float | None = None

    # -- references
    def share(self, obj) -> dict:
        if self.share_policy is not None:
            self.share_policy(obj)             # raises Unsendable when this side sends data only
        n = self.ids.get(id(obj))
        if n is None or self.objects.get(n) is not obj:
            self.next_id += 1
            n = self.next_id
            self.objects[n], self.ids[id(obj)] = obj, n
        return {"$ref": {"side": self.side, "id": n, "callable": callable(obj), "type": type(obj).__name__[:60]}}

    def resolve(self, ref: dict):
        if ref.get("side") == self.side:
            if type(ref.get("id")) is not int or ref["id"] not in self.objects:
                raise ProtocolError(f"a reference to nothing ({ref.get('id')!r})")
            return self.objects[ref["id"]]
        return (CallableProxy if ref.get("callable") else Proxy)(self, dict(ref))

    def encode(self, x):
        return encode(x, self.share)

    def decode(self, v):
        return decode(v, self.resolve)

    # -- lines
    def send(self, message: dict) -> None:
        data = (_dumps(message, separators=(",", ":")) + "\n").encode()
        view = memoryview(data)
        while view:
            try:
                n = _write(self.write_fd, view)
            except BrokenPipeError:
                raise Gone(f"the {self.peer} closed the pipe") from None
            view = view[n:]

    def receive(self) -> dict:
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                try:
                    message = _loads(line)
                except ValueError:
                    raise ProtocolError(f"a line that is not JSON: {line[:80]!r}") from None
                if type(message) is not dict:
                    raise ProtocolError(f"a message that is not an object: {line[:80]!r}")
                return message
            if len(self.buffer) > MAX_MESSAGE:
                self.buffer.clear()
                raise ProtocolError(f"a message longer than {MAX_MESSAGE >> 20} MB")
            if self.deadline is not None:
                left = self.deadline - time.monotonic()
                if left <= 0 or not _select([self.read_fd], [], [], left)[0]:
                    raise TimedOut(f"the {self.peer} did not answer in time")
            chunk = _read(self.read_fd, 1 << 20)
            if not chunk:
                raise Gone(f"the {self.peer} closed the pipe")
            self.buffer += chunk

    # -- requests
    def request(self, message: dict):
        """Send a request (its values are encoded here) and return the decoded reply's value,
        serving the other side's requests meanwhile."""
        return self.finish(self.start(message))

    def start(self, message: dict) -> int:
        """Send a request without waiting for its reply (``finish`` waits); its id."""
        self.next_id += 1
        rid = self.next_id
        body = {k: (self.encode(v) if k in ("args", "kwargs", "value") else v) for k, v in message.items()}
        if "kwargs" in body:
            body["kwargs"] = {"$dict": [[k, self.encode(v)] for k, v in message["kwargs"].items()]}
        self.send({"id": rid, **body})
        return rid

    def finish(self, rid: int):
        """The value of the reply to request ``rid``, serving the other side's requests meanwhile."""
        while True:
            m = self.receive()
            if "op" in m:
                self.answer(m)
                continue
            if m.get("re") != rid:
                raise ProtocolError(f"a reply to request {m.get('re')!r} while waiting for {rid}")
            if "raised" in m:
                kind, text = (m["raised"] + ["", ""])[:2] if type(m["raised"]) is list else ("Error", "")
                raise Raised(str(kind)[:100], str(text)[:4000])
            if "value" not in m:
                raise ProtocolError("a reply without a value")
            return self.decode(m["value"])

    def answer(self, m: dict) -> None:
        rid = m.get("id")
        try:
            value = self.serve(m)
            reply = {"re": rid, "value": self.encode(value)}
        except (Gone, TimedOut):
            raise
        except BaseException as e:    # the other side's request failed: tell it why
            if self.side == "checker" and not isinstance(e, Exception):
                raise                 # a test's time limit, Ctrl-C, a broken pipe: the checker's own
            try:
                text = str(e)
            except BaseException:
                text = "(its message could not be read)"
            reply = {"re": rid, "raised": [type(e).__name__, text[:4000]]}
        self.send(reply)

    def arguments(self, m: dict) -> tuple[list, dict]:
        args = self.decode(m.get("args", []))
        kwargs = self.decode(m.get("kwargs", {"$dict": []}))
        if type(args) is not list or type(kwargs) is not dict or not all(type(k) is str for k in kwargs):
            raise ProtocolError("call arguments that are not a list and a dict of names")
        return args, kwargs
