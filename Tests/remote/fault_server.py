#!/usr/bin/env python3
"""A misbehaving HTTP server for the remote-source tests, on 127.0.0.1 only.

    python3 fault_server.py PORT [CERT KEY]    (with a certificate and key: over TLS)

Paths (all named .m3u8, so the library takes them for playlists):
  /status/CODE.m3u8      answers CODE (404, 403, 500, ...)
  /loop/a.m3u8           302 to /loop/b.m3u8, which 302s back: a redirect loop
  /chain/N.m3u8          302 to /chain/N-1.m3u8; /chain/0.m3u8 is a playlist (N redirects)
  /to-file.m3u8          302 to file:///etc/passwd
  /no-location.m3u8      302 without Location
  /stall.m3u8            200, Content-Length 1000, 100 bytes, then nothing for 600 s
  /slow-first-byte.m3u8  nothing for 600 s
  /huge.m3u8             200, Content-Length 2000000, the body
  /huge-unsized.m3u8     200, no Content-Length (connection close), 2000000 bytes
  /ok.m3u8               a 4 s VOD media playlist
  /chunked.m3u8          that playlist in Transfer-Encoding: chunked
  /gzip.m3u8             that playlist with Content-Encoding: gzip

MP4 paths serve Fixtures/content.mp4 (moov at the end) by byte ranges, misbehaving as named:
  /mp4/ok.mp4            206 with Content-Range and an ETag, as nginx does
  /mp4/ignores-range.mp4 200 with the whole body, whatever the Range
  /mp4/etag-changes.mp4  a new ETag at every request
  /mp4/short-body.mp4    Content-Length as asked, a byte fewer sent, then the connection closed
  /mp4/wrong-length.mp4  206 whose Content-Length and body are a byte short of its Content-Range
"""
import gzip
import http.server
import itertools
import os
import sys
import time

MP4 = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Fixtures", "content.mp4"), "rb").read()
COUNTER = itertools.count()

PLAYLIST = b"#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n" \
           b"#EXTINF:2.0,\nseg0.ts\n#EXTINF:2.0,\nseg1.ts\n#EXT-X-ENDLIST\n"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def head(self, code, headers=(), length=None):
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.end_headers()

    def redirect(self, location):
        self.head(302, [("Location", location)] if location else [], 0)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path.startswith("/status/"):
            code = int(path[len("/status/"):].split(".")[0])
            self.head(code, length=0)
        elif path == "/loop/a.m3u8":
            self.redirect("/loop/b.m3u8")
        elif path == "/loop/b.m3u8":
            self.redirect("a.m3u8")
        elif path.startswith("/chain/"):
            n = int(path[len("/chain/"):].split(".")[0])
            if n == 0:
                self.head(200, [("Content-Type", "application/vnd.apple.mpegurl")], len(PLAYLIST))
                self.wfile.write(PLAYLIST)
            else:
                self.redirect("/chain/%d.m3u8" % (n - 1))
        elif path == "/to-file.m3u8":
            self.redirect("file:///etc/passwd")
        elif path == "/no-location.m3u8":
            self.redirect(None)
        elif path == "/stall.m3u8":
            self.head(200, length=1000)
            self.wfile.write(PLAYLIST[:100])
            self.wfile.flush()
            time.sleep(600)
        elif path == "/slow-first-byte.m3u8":
            time.sleep(600)
        elif path == "/huge.m3u8":
            self.head(200, length=2_000_000)
            self.write_huge()
        elif path == "/huge-unsized.m3u8":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            self.write_huge()
        elif path == "/ok.m3u8":
            self.head(200, [("Content-Type", "application/vnd.apple.mpegurl")], len(PLAYLIST))
            self.wfile.write(PLAYLIST)
        elif path == "/chunked.m3u8":
            self.head(200, [("Content-Type", "application/vnd.apple.mpegurl"), ("Transfer-Encoding", "chunked")])
            for i in range(0, len(PLAYLIST), 20):
                part = PLAYLIST[i:i + 20]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/gzip.m3u8":
            body = gzip.compress(PLAYLIST)
            self.head(200, [("Content-Type", "application/vnd.apple.mpegurl"), ("Content-Encoding", "gzip")], len(body))
            self.wfile.write(body)
        elif path.startswith("/mp4/"):
            self.mp4(path[len("/mp4/"):])
        else:
            self.head(404, length=0)

    def mp4(self, name):
        first, last = 0, len(MP4) - 1
        ranged = self.headers.get("Range", "")
        if ranged.startswith("bytes="):
            a, b = ranged[6:].split("-")
            first, last = int(a), min(int(b), len(MP4) - 1) if b else len(MP4) - 1
        etag = '"v%d"' % next(COUNTER) if name == "etag-changes.mp4" else '"v1"'
        if name == "ignores-range.mp4" or not ranged:
            self.head(200, [("ETag", etag)], len(MP4))
            self.send_body(MP4)
            return
        body = MP4[first:last + 1]
        headers = [("ETag", etag), ("Content-Range", "bytes %d-%d/%d" % (first, last, len(MP4)))]
        if name == "short-body.mp4":
            self.head(206, headers, len(body))
            self.send_body(body[:-1])
            self.close_connection = True
        elif name == "wrong-length.mp4":
            self.head(206, headers, len(body) - 1)
            self.send_body(body[:-1])
        else:
            self.head(206, headers, len(body))
            self.send_body(body)

    def send_body(self, body):
        try:
            self.wfile.write(body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def write_huge(self):
        chunk = b"#" * 10_000
        try:
            for _ in range(200):
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


if __name__ == "__main__":
    server = Server(("127.0.0.1", int(sys.argv[1])), Handler)
    if len(sys.argv) == 4:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()
