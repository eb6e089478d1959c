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
import re
import select
import sys
import time

# Bound now, when the module is imported (in the kernel: before any cell runs), so that a
# submission that patches os.write or json.dumps changes nothing of how its answers travel.
_read, _write, _select = os.read, os.write, select.select
_dumps, _loads = json.dumps, json.loads

MAX_MESSAGE = 64 << 20  # bytes in one line: a bigger answer is refused, not read
MAX_DEPTH = 64  # nesting of lists, tuples and dicts
# What one reply may make the checker build, checked *before* anything is allocated:
REPLY_BYTES = 256 << 20  # bytes of arrays, strings and bytes decoded from one reply
REPLY_ITEMS = 4_000_000  # values (list items, dict entries, array items) in one reply
MAX_STRING = 1 << 16  # characters of one item of a string array (dtype <U65536 at most)
MAX_DIMS = 32  # dimensions of an array (numpy's own limit is 64)
# The dtypes a reply may name: bool, integers, floats, complex, strings and object arrays of
# data; with a byte order and an item size, nothing else (no structured, void, datetime dtype).
DTYPE = re.compile(r"[<>|=]?(b1|[iu][1248]|f[248]|c(8|16)|U\d{1,5}|O)")


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


NUMERIC_KINDS = "biufc"  # bool, int, unsigned, float, complex: sent as raw bytes


def _array(a, share, depth) -> dict:
    import numpy as np

    a = np.array(
        a, copy=True, subok=False, order="C"
    )  # (np.ascontiguousarray makes 0-d arrays 1-d)
    if a.dtype.fields is not None:
        raise Unsendable(f"a structured array ({a.dtype})")
    if a.dtype.kind in NUMERIC_KINDS:
        return {
            "dtype": a.dtype.str,
            "shape": list(a.shape),
            "data": base64.b64encode(a.tobytes()).decode(),
        }
    if a.dtype.kind in "UO":
        return {
            "dtype": a.dtype.str,
            "shape": list(a.shape),
            "items": [encode(x, share, depth + 1) for x in a.ravel().tolist()],
        }
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
        with torch._C.DisableTorchFunction():  # a subclass's __torch_function__ is not run
            t = torch.Tensor.detach(x).cpu()
            if t.dtype == torch.bfloat16:
                t = t.float()
            a = t.resolve_conj().resolve_neg().numpy()
        return {"$tensor": _array(a, share, depth)}
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
        return {
            "$dict": [
                [encode(k, share, depth + 1), encode(v, share, depth + 1)] for k, v in dict.items(x)
            ]
        }
    if isinstance(x, (set, frozenset)):
        return {"$set": [encode(v, share, depth + 1) for v in set.__iter__(set(x))]}
    return share(x)


class Budget:
    """What is left to decode one reply: bytes, values and time. Every allocation is charged
    before it is made, so a reply that asks for more is refused (ProtocolError) without the
    checker ever holding it; past ``deadline`` (time.monotonic()) decoding stops (TimedOut)."""

    def __init__(
        self, nbytes: int = REPLY_BYTES, items: int = REPLY_ITEMS, deadline: float | None = None
    ):
        self.bytes, self.items, self.deadline = nbytes, items, deadline

    def charge(self, nbytes: int = 0, items: int = 0, what: str = "") -> None:
        self.bytes -= nbytes
        self.items -= items
        if self.bytes < 0:
            raise ProtocolError(f"a reply bigger than {REPLY_BYTES >> 20} MB once decoded ({what})")
        if self.items < 0:
            raise ProtocolError(f"a reply of more than {REPLY_ITEMS:,} values ({what})")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimedOut("decoding the reply took past the test's deadline")


def array_dtype(name):
    """The numpy dtype a reply names, if it is one a reply may use (``DTYPE``), else
    ProtocolError."""
    import numpy as np

    if type(name) is not str or not DTYPE.fullmatch(name):
        raise ProtocolError(
            f"an array of dtype {str(name)[:40]!r}: expected bool, int, float, complex, "
            f"str (at most {MAX_STRING} characters) or object"
        )
    dtype = np.dtype(name)
    if dtype.kind == "U" and not 0 < dtype.itemsize // 4 <= MAX_STRING:
        raise ProtocolError(
            f"an array of dtype {name!r}: strings of at most {MAX_STRING} characters"
        )
    return dtype


def measure(x, limit: int) -> int:
    """About how many bytes ``x`` takes once encoded, without encoding it: counted from array
    and tensor sizes and string lengths, and stopped as soon as it passes ``limit`` (a kernel
    holding a 768 MiB array learns that it is too big without copying it)."""
    np = sys.modules.get("numpy")
    torch = sys.modules.get("torch")
    total, stack, seen = 0, [x], 0
    while stack and total <= limit:
        v = stack.pop()
        seen += 1
        if seen > REPLY_ITEMS:
            return limit + 1
        if v is None or type(v) in (bool, int, float, complex):
            total += 24
        elif isinstance(v, str):
            total += 2 * str.__len__(v) + 2
        elif isinstance(v, (bytes, bytearray)):
            total += 2 * len(v) + 2
        elif np is not None and isinstance(v, np.generic):
            total += 64
        elif np is not None and isinstance(v, np.ndarray):
            total += 2 * np.ndarray.nbytes.__get__(v) + 64  # base64 and JSON: under twice
            if np.ndarray.dtype.__get__(v).kind == "O":
                stack.extend(np.ndarray.ravel(v)[: limit // 24].tolist())
        elif torch is not None and isinstance(v, torch.Tensor):
            with torch._C.DisableTorchFunction():
                total += 2 * torch.Tensor.numel(v) * torch.Tensor.element_size(v) + 64
        elif isinstance(v, (list, tuple, set, frozenset)):
            total += 2
            iterate = (
                list.__iter__
                if isinstance(v, list)
                else tuple.__iter__
                if isinstance(v, tuple)
                else set.__iter__
            )
            stack.extend(iterate(v) if not isinstance(v, frozenset) else frozenset.__iter__(v))
        elif isinstance(v, dict):
            total += 2
            for k, e in dict.items(v):
                stack += [k, e]
        else:
            total += 64  # an object: a reference
    return total


def _decode_array(body, resolve, depth, budget):
    import numpy as np

    if (
        type(body) is not dict
        or type(body.get("dtype")) is not str
        or type(body.get("shape")) is not list
    ):
        raise ProtocolError("an array without dtype and shape")
    shape = tuple(body["shape"])
    if len(shape) > MAX_DIMS or not all(type(n) is int and 0 <= n for n in shape):
        raise ProtocolError(f"an array of shape {str(shape)[:80]}")
    dtype = array_dtype(body["dtype"])
    count = math.prod(shape)
    if count > REPLY_ITEMS or dtype.itemsize * count > REPLY_BYTES:
        raise ProtocolError(
            f"an array of shape {str(shape)[:80]} and dtype {dtype}: larger than a reply may be"
        )
    if "data" in body:
        data = body["data"]
        if dtype.kind not in NUMERIC_KINDS or type(data) is not str:
            raise ProtocolError(f"raw bytes for an array of dtype {dtype}")
        if len(data) != 4 * -(-dtype.itemsize * count // 3):  # base64: 4 characters per 3 bytes
            raise ProtocolError(
                f"{len(data)} base64 characters for an array of shape {shape} and dtype {dtype}"
            )
        budget.charge(
            2 * dtype.itemsize * count, what=f"an array of shape {shape} and dtype {dtype}"
        )
        try:
            raw = base64.b64decode(data, validate=True)
        except ValueError:
            raise ProtocolError("an array whose bytes are not base64") from None
        if len(raw) != dtype.itemsize * count:
            raise ProtocolError(f"{len(raw)} bytes for an array of shape {shape} and dtype {dtype}")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    items = body.get("items")
    if dtype.kind not in "UO" or type(items) is not list or len(items) != count:
        raise ProtocolError(f"items for an array of dtype {dtype}")
    budget.charge(dtype.itemsize * count, what=f"an array of shape {shape} and dtype {dtype}")
    if dtype.kind == "U":
        width = dtype.itemsize // 4
        if not all(type(x) is str and len(x) <= width for x in items):
            raise ProtocolError(
                f"items of an array of dtype {dtype} that are not strings of {width} characters"
            )
    else:
        items = [decode(v, resolve, depth + 1, budget) for v in items]
    out = np.empty(count, dtype=dtype)
    for i, v in enumerate(items):
        out[i] = v
    return out.reshape(shape)


def decode(v, resolve, depth: int = 0, budget: Budget | None = None):
    """The value a message holds; ``resolve(ref)`` turns a reference into an object or a proxy.
    ``budget`` bounds what it may build (a fresh ``Budget()`` when not given): a reply that asks
    for more is a ProtocolError, raised before the allocation."""
    if budget is None:
        budget = Budget()
    if depth > MAX_DEPTH:
        raise ProtocolError("a value nested too deep")
    budget.charge(items=1, what="a value")
    if v is None or type(v) in (bool, int, float):
        return v
    if type(v) is str:
        budget.charge(len(v), what="a string")
        return v
    if type(v) is list:
        return [decode(e, resolve, depth + 1, budget) for e in v]
    if type(v) is not dict or len(v) != 1:
        raise ProtocolError(f"not a value: {str(v)[:80]}")
    ((tag, body),) = v.items()
    if tag == "$tuple" and type(body) is list:
        return tuple(decode(e, resolve, depth + 1, budget) for e in body)
    if tag in ("$dict", "$set") and type(body) is list:
        return _decode_collection(tag, body, resolve, depth, budget)
    if tag == "$ellipsis":
        return Ellipsis
    if (
        tag == "$complex"
        and type(body) is list
        and len(body) == 2
        and all(type(n) in (int, float) for n in body)
    ):
        try:
            return complex(body[0], body[1])
        except OverflowError:
            raise ProtocolError("a complex number out of range") from None
    if tag == "$bytes" and type(body) is str:
        budget.charge(len(body), what="bytes")
        try:
            return base64.b64decode(body, validate=True)
        except ValueError:
            raise ProtocolError("bytes that are not base64") from None
    if tag == "$array":
        return _decode_array(body, resolve, depth, budget)
    if tag == "$scalar":
        return _decode_array(body, resolve, depth, budget)[()]
    if tag == "$tensor":
        import torch

        return torch.from_numpy(_decode_array(body, resolve, depth, budget))
    if tag == "$ref" and type(body) is dict:
        return resolve(body)
    raise ProtocolError(f"an unknown value tag {str(tag)[:40]!r}")


def _decode_collection(tag, body, resolve, depth, budget):
    """A dict or a set, its entries added one at a time with the budget (and the deadline)
    checked before each: keys that all hash alike (a forged set of colliding integers) make
    each insertion slower, and are stopped at the deadline instead of running on."""
    out = {} if tag == "$dict" else set()
    try:
        for e in body:
            budget.charge(items=1, what="a dict or set entry")
            if tag == "$dict":
                if type(e) is not list or len(e) != 2:
                    raise ProtocolError("a dict entry that is not a [key, value] pair")
                out[decode(e[0], resolve, depth + 1, budget)] = decode(
                    e[1], resolve, depth + 1, budget
                )
            else:
                out.add(decode(e, resolve, depth + 1, budget))
    except (TypeError, ValueError) as e:
        raise ProtocolError(f"a {tag[1:]} that cannot be rebuilt ({e})") from None
    return out


# ---------------------------------------------------------------------------------------------
# the link


class Proxy:
    """An object of the other side: calling it, or reading one of its attributes, is a request."""

    __slots__ = ("_link", "_ref")

    def __init__(self, link: Link, ref: dict):
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
        return self._link.request(
            {"op": "call", "target": self._ref["id"], "args": list(args), "kwargs": kwargs}
        )


class Link:
    """One side of the pipe pair. ``serve(message)`` answers the other side's requests;
    ``share(obj)`` says how this side sends what is not data (a reference, or Unsendable)."""

    def __init__(self, read_fd: int, write_fd: int, side: str, peer: str, serve, share=None):
        self.read_fd, self.write_fd = read_fd, write_fd
        self.side, self.peer = side, peer
        self.serve = serve
        self.share_policy = share
        self.objects: dict[int, object] = {}  # references this side handed out: id -> object
        self.ids: dict[int, int] = {}  # id(object) -> reference id
        self.next_id = 0
        self.buffer = bytearray()
        self.deadline: float | None = None

    # -- references
    def share(self, obj) -> dict:
        if self.share_policy is not None:
            self.share_policy(obj)  # raises Unsendable when this side sends data only
        n = self.ids.get(id(obj))
        if n is None or self.objects.get(n) is not obj:
            self.next_id += 1
            n = self.next_id
            self.objects[n], self.ids[id(obj)] = obj, n
        return {
            "$ref": {
                "side": self.side,
                "id": n,
                "callable": callable(obj),
                "type": type(obj).__name__[:60],
            }
        }

    def resolve(self, ref: dict):
        if ref.get("side") == self.side:
            if type(ref.get("id")) is not int or ref["id"] not in self.objects:
                raise ProtocolError(f"a reference to nothing ({ref.get('id')!r})")
            return self.objects[ref["id"]]
        return (CallableProxy if ref.get("callable") else Proxy)(self, dict(ref))

    def encode(self, x):
        return encode(x, self.share)

    def decode(self, v):
        """A message's value, within a fresh per-reply budget and this link's deadline. Whatever
        goes wrong while decoding (a MemoryError, a RecursionError, a numpy error on a forged
        array) is a ProtocolError: the reply broke the protocol, the checker did not fail."""
        try:
            return decode(v, self.resolve, 0, Budget(deadline=self.deadline))
        except (ProtocolError, TimedOut, Gone):
            raise
        except (Exception, MemoryError, RecursionError) as e:
            raise ProtocolError(f"a value that cannot be decoded ({type(e).__name__})") from None

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
                except (
                    ValueError,
                    RecursionError,
                    MemoryError,
                ) as e:  # digits past int's limit too
                    raise ProtocolError(
                        f"a line that is not JSON ({type(e).__name__}): {line[:80]!r}"
                    ) from None
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
        body = {
            k: (self.encode(v) if k in ("args", "kwargs", "value") else v)
            for k, v in message.items()
        }
        if "kwargs" in body:
            body["kwargs"] = {"$dict": [[k, self.encode(v)] for k, v in message["kwargs"].items()]}
        self.send({"id": rid, **body})
        return rid

    def finish(self, rid: int):
        """The value of the reply to request ``rid``, serving the other side's requests
        meanwhile."""
        while True:
            m = self.receive()
            if "op" in m:
                self.answer(m)
                continue
            if m.get("re") != rid:
                raise ProtocolError(f"a reply to request {m.get('re')!r} while waiting for {rid}")
            if "raised" in m:
                kind, text = (
                    (m["raised"] + ["", ""])[:2] if type(m["raised"]) is list else ("Error", "")
                )
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
        except BaseException as e:  # the other side's request failed: tell it why
            if self.side == "checker" and not isinstance(e, Exception):
                raise  # a test's time limit, Ctrl-C, a broken pipe: the checker's own
            try:
                text = str(e)
            except BaseException:
                text = "(its message could not be read)"
            reply = {"re": rid, "raised": [type(e).__name__, text[:4000]]}
        self.send(reply)

    def arguments(self, m: dict) -> tuple[list, dict]:
        args = self.decode(m.get("args", []))
        kwargs = self.decode(m.get("kwargs", {"$dict": []}))
        if (
            type(args) is not list
            or type(kwargs) is not dict
            or not all(type(k) is str for k in kwargs)
        ):
            raise ProtocolError("call arguments that are not a list and a dict of names")
        return args, kwargs
