#!/usr/bin/env python3
"""A VMAP/VAST ad server for the ad tests, on 127.0.0.1 only.

    python3 -u ad_server.py PORT ROOT [--log FILE]    (PORT 0: any free port; the port is printed)

Prints "listening on http://127.0.0.1:PORT" once it accepts connections. GET and HEAD.

Paths:
  /<relative path>           the file ROOT/<relative path>. In .xml, .vmap and .vast files the text {{BASE}}
                             becomes http://127.0.0.1:PORT (documents link to each other and to beacons here).
                             Content-Type application/xml for those, video/mp4 for .mp4, else by extension.
                             A single "Range: bytes=a-b" (or a-, or -n) is answered 206 with Content-Range;
                             without Range 200; every file answer has an ETag and Accept-Ranges: bytes.
                             A range past the end: 416. Several ranges: 200 with the whole file.
                             ".." segments, directories and missing files: 404. Symbolic links under ROOT
                             are followed (a test may link a large MP4 in rather than copy it).
  /chain/DEPTH/FINAL         DEPTH > 0: a VAST 4.0 <Wrapper> ad, id "w{DEPTH}", whose VASTAdTagURI is
                             {BASE}/chain/{DEPTH-1}/{FINAL} (with ?delay_ms=N if this request had one), with
                             Impression {BASE}/beacon/w{DEPTH}/impression, Error
                             {BASE}/beacon/w{DEPTH}/error?code=[ERRORCODE], and a Linear creative tracking
                             start, firstQuartile, midpoint, thirdQuartile and complete at
                             {BASE}/beacon/w{DEPTH}/{event}. DEPTH 0: the file ROOT/FINAL, as above.
                             FINAL may hold slashes (/chain/2/ads/inline.xml). The wrappers are in the
                             default namespace xmlns="http://www.iab.com/VAST", as the IAB VAST 4 samples are.
  /beacon/...                any path: answered 204 No Content (honours delay_ms; nothing else).
  /_log                      the in-memory log as a JSON array (not itself logged)
  /_reset                    empties the in-memory log, answers 204 (not logged; the --log file is kept)

Query parameters on files and /chain paths (each hop of a chain reads its own; only delay_ms is
passed on to the next hop):
  delay_ms=N   sleep N ms before answering
  status=N     answer N with an empty body instead
  invalid=1    answer 200 with the truncated, not well-formed document <VAST version="4.0"><Ad>
  empty=1      answer 200 with <VAST version="4.0"/> (no ads)
(status wins over invalid, which wins over empty.)

Log: every request but /_log and /_reset, as {"t": time.monotonic() when the request arrived,
"path": the request target exactly as received (with its query), "kind": "beacon" | "document"
(/chain, .xml, .vmap, .vast) | "media" (.mp4 and other video/audio types) | "other", "status": the
status answered}. An entry is added just before its answer is sent (after any delay), so entries are
in answer order; t is the arrival time. Kept in memory for /_log and, with --log FILE, appended to
FILE as one JSON line each, flushed at once.
"""
import argparse
import email.utils
import http.server
import json
import mimetypes
import os
import posixpath
import re
import sys
import threading
import time
import urllib.parse

DOCUMENT_EXTENSIONS = (".xml", ".vmap", ".vast")
INVALID_BODY = b'<VAST version="4.0"><Ad>'
EMPTY_BODY = b'<VAST version="4.0"/>'
TRACKED_EVENTS = ("start", "firstQuartile", "midpoint", "thirdQuartile", "complete")

WRAPPER = """<?xml version="1.0" encoding="UTF-8"?>
<VAST version="4.0" xmlns="http://www.iab.com/VAST">
  <Ad id="{id}">
    <Wrapper>
      <AdSystem version="1.0">ad_server.py</AdSystem>
      <Error><![CDATA[{beacon}/error?code=[ERRORCODE]]]></Error>
      <Impression><![CDATA[{beacon}/impression]]></Impression>
      <Creatives>
        <Creative id="{id}-linear">
          <Linear>
            <TrackingEvents>
{tracking}
            </TrackingEvents>
          </Linear>
        </Creative>
      </Creatives>
      <VASTAdTagURI><![CDATA[{next}]]></VASTAdTagURI>
    </Wrapper>
  </Ad>
</VAST>
"""


class Log:
    def __init__(self, path):
        self.lock = threading.Lock()
        self.entries = []
        self.file = open(path, "a", encoding="utf-8") if path else None

    def add(self, entry):
        with self.lock:
            self.entries.append(entry)
            if self.file:
                self.file.write(json.dumps(entry) + "\n")
                self.file.flush()

    def snapshot(self):
        with self.lock:
            return list(self.entries)

    def reset(self):
        with self.lock:
            self.entries.clear()


def truthy(value):
    return value is not None and value.lower() not in ("", "0", "false", "no")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.handle_request(head_only=False)

    def do_HEAD(self):
        self.handle_request(head_only=True)

    # -- plumbing --------------------------------------------------------------------------------

    @property
    def base(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def answer(self, status, body=b"", headers=(), kind=None, length=None):
        """Logs the request (unless kind is None), then sends status, headers and body
        (Content-Length: length, or the body's; a HEAD request gets no body)."""
        if kind is not None:
            self.server.log.add({"t": self.arrival, "path": self.path, "kind": kind, "status": status})
        try:
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            if status not in (204, 304) and not (100 <= status < 200):
                self.send_header("Content-Length", str(len(body) if length is None else length))
            self.end_headers()
            if body and not self.head_only and status not in (204, 304):
                self.wfile.write(body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def handle_request(self, head_only):
        self.arrival = time.monotonic()
        self.head_only = head_only
        parts = urllib.parse.urlsplit(self.path)
        path = parts.path
        query = dict(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
        if path == "/_log":
            body = json.dumps(self.server.log.snapshot()).encode()
            self.answer(200, body, [("Content-Type", "application/json")])
            return
        if path == "/_reset":
            self.server.log.reset()
            self.answer(204)
            return
        if path.startswith("/beacon/"):
            self.delay(query)
            self.answer(204, kind="beacon")
            return
        if path.startswith("/chain/"):
            self.chain(path[len("/chain/"):], query)
            return
        self.file(urllib.parse.unquote(path.lstrip("/")), query)

    def delay(self, query):
        value = query.get("delay_ms")
        if value:
            try:
                time.sleep(max(0.0, float(value)) / 1000.0)
            except ValueError:
                pass

    def overridden(self, query, kind):
        """Applies delay_ms, then answers for status/invalid/empty; True when it answered."""
        self.delay(query)
        if "status" in query:
            try:
                status = int(query["status"])
            except ValueError:
                self.answer(400, kind=kind)
                return True
            self.answer(status, kind=kind)
            return True
        if truthy(query.get("invalid")):
            self.answer(200, INVALID_BODY, [("Content-Type", "application/xml")], kind)
            return True
        if truthy(query.get("empty")):
            self.answer(200, EMPTY_BODY, [("Content-Type", "application/xml")], kind)
            return True
        return False

    # -- paths -----------------------------------------------------------------------------------

    def chain(self, rest, query):
        depth_text, _, final = rest.partition("/")
        if not re.fullmatch(r"[0-9]+", depth_text) or not final:
            self.delay(query)
            self.answer(404, kind="document")
            return
        depth = int(depth_text)
        if depth == 0:
            self.file(urllib.parse.unquote(final), query, kind="document")
            return
        if self.overridden(query, "document"):
            return
        next_url = "%s/chain/%d/%s" % (self.base, depth - 1, final)
        if "delay_ms" in query:
            next_url += "?" + urllib.parse.urlencode({"delay_ms": query["delay_ms"]})
        ad_id = "w%d" % depth
        beacon = "%s/beacon/%s" % (self.base, ad_id)
        tracking = "\n".join(
            '              <Tracking event="%s"><![CDATA[%s/%s]]></Tracking>' % (event, beacon, event)
            for event in TRACKED_EVENTS)
        body = WRAPPER.format(id=ad_id, beacon=beacon, tracking=tracking, next=next_url).encode()
        self.answer(200, body, [("Content-Type", "application/xml")], "document")

    def file(self, relative, query, kind=None):
        lower = relative.lower()
        if kind is None:
            kind = self.kind_of(lower)
        root = self.server.root
        segments = relative.split("/")
        # ".." is refused outright; symbolic links the test put under ROOT are followed.
        target = os.path.normpath(os.path.join(root, *segments)) if relative else root
        if ".." in segments or "\\" in relative or "\0" in relative \
                or not target.startswith(root + os.sep) or not os.path.isfile(target):
            self.delay(query)
            self.answer(404, kind=kind)
            return
        if self.overridden(query, kind):
            return
        stat = os.stat(target)
        document = lower.endswith(DOCUMENT_EXTENSIONS)
        if document:
            with open(target, "rb") as handle:
                data = handle.read().replace(b"{{BASE}}", self.base.encode())
            size = len(data)
            content_type = "application/xml"
        else:
            data = None
            size = stat.st_size
            content_type = "video/mp4" if lower.endswith(".mp4") else \
                mimetypes.guess_type(lower)[0] or "application/octet-stream"

        def read(first, last):
            if data is not None:
                return data[first:last + 1]
            with open(target, "rb") as handle:
                handle.seek(first)
                return handle.read(last + 1 - first)

        headers = [
            ("Content-Type", content_type),
            ("Accept-Ranges", "bytes"),
            ("ETag", '"%x-%x-%x"' % (stat.st_mtime_ns, stat.st_size, size)),
            ("Last-Modified", email.utils.formatdate(stat.st_mtime, usegmt=True)),
        ]
        ranged = self.byte_range(self.headers.get("Range"), size)
        if ranged is None:
            self.answer(200, read(0, size - 1) if not self.head_only else b"", headers, kind, length=size)
        elif ranged == "unsatisfiable":
            self.answer(416, b"", headers + [("Content-Range", "bytes */%d" % size)], kind)
        else:
            first, last = ranged
            headers.append(("Content-Range", "bytes %d-%d/%d" % (first, last, size)))
            body = read(first, last) if not self.head_only else b""
            self.answer(206, body, headers, kind, length=last + 1 - first)

    @staticmethod
    def kind_of(lower):
        if lower.endswith(DOCUMENT_EXTENSIONS):
            return "document"
        guessed = mimetypes.guess_type(lower)[0] or ""
        if lower.endswith(".mp4") or guessed.startswith(("video/", "audio/")):
            return "media"
        return "other"

    @staticmethod
    def byte_range(header, size):
        """None: answer the whole file; "unsatisfiable"; or (first, last) inclusive."""
        if not header:
            return None
        match = re.fullmatch(r"\s*bytes\s*=\s*([0-9]*)\s*-\s*([0-9]*)\s*", header)
        if not match or (not match.group(1) and not match.group(2)):
            return None  # several ranges, or not bytes: ignored, as RFC 9110 allows
        if match.group(1):
            first = int(match.group(1))
            last = int(match.group(2)) if match.group(2) else size - 1
            if last < first:
                return None
            if first >= size:
                return "unsatisfiable"
            return first, min(last, size - 1)
        suffix = int(match.group(2))
        if suffix == 0:
            return "unsatisfiable"
        return max(0, size - suffix), size - 1


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64


def main(argv):
    parser = argparse.ArgumentParser(description="VMAP/VAST ad server for tests, on 127.0.0.1 only.")
    parser.add_argument("port", type=int)
    parser.add_argument("root")
    parser.add_argument("--log", metavar="FILE")
    args = parser.parse_args(argv)
    server = Server(("127.0.0.1", args.port), Handler)
    server.root = os.path.abspath(args.root)
    server.log = Log(args.log)
    print("listening on http://127.0.0.1:%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main(sys.argv[1:])
