#!/usr/bin/env python3
"""Self-test of ad_server.py: python3 -m unittest Tests/remote/test_ad_server.py (from the package root).

Starts the server as a subprocess on a free 127.0.0.1 port with a temporary ROOT and --log file.
"""
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import xml.etree.ElementTree as ET

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ad_server.py")
NS = "{http://www.iab.com/VAST}"

INLINE = """<VAST version="4.0"><Ad id="final"><InLine><AdSystem>t</AdSystem><AdTitle>t</AdTitle>
<Impression><![CDATA[{{BASE}}/beacon/final/impression]]></Impression>
<Creatives><Creative><Linear><Duration>00:00:05</Duration><MediaFiles>
<MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[{{BASE}}/media/ad.mp4]]></MediaFile>
</MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class AdServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="ad_server_root_")
        cls.outside = tempfile.mkdtemp(prefix="ad_server_outside_")
        os.makedirs(os.path.join(cls.root, "media"))
        os.makedirs(os.path.join(cls.root, "vast"))
        with open(os.path.join(cls.root, "vast", "inline.xml"), "w") as handle:
            handle.write(INLINE)
        with open(os.path.join(cls.root, "pod.vmap"), "w") as handle:
            handle.write('<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">'
                         '<x>{{BASE}}/vast/inline.xml</x></vmap:VMAP>')
        cls.mp4 = bytes((i * 7 + 3) % 256 for i in range(10_000))
        with open(os.path.join(cls.root, "media", "ad.mp4"), "wb") as handle:
            handle.write(cls.mp4)
        with open(os.path.join(cls.outside, "secret.txt"), "w") as handle:
            handle.write("secret")
        with open(os.path.join(cls.outside, "linked.mp4"), "wb") as handle:
            handle.write(cls.mp4[:5000])
        os.symlink(os.path.join(cls.outside, "linked.mp4"), os.path.join(cls.root, "media", "linked.mp4"))
        cls.log_path = os.path.join(cls.outside, "log.jsonl")
        cls.port = free_port()
        cls.base = "http://127.0.0.1:%d" % cls.port
        cls.process = subprocess.Popen(
            [sys.executable, "-u", SERVER, str(cls.port), cls.root, "--log", cls.log_path],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = cls.process.stdout.readline()
        if "listening" not in line:
            cls.process.kill()
            raise RuntimeError("server did not start: %r %r" % (line, cls.process.stderr.read()))

    @classmethod
    def tearDownClass(cls):
        cls.process.terminate()
        try:
            cls.process.wait(5)
        except subprocess.TimeoutExpired:
            cls.process.kill()
            cls.process.wait()
        cls.process.stdout.close()
        cls.process.stderr.close()
        shutil.rmtree(cls.root, ignore_errors=True)
        shutil.rmtree(cls.outside, ignore_errors=True)

    def setUp(self):
        self.assertEqual(self.request("/_reset")[0], 204)

    def request(self, path, method="GET", headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request(method, path, headers=headers or {})
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def log(self):
        status, headers, body = self.request("/_log")
        self.assertEqual(status, 200)
        self.assertEqual(headers["content-type"], "application/json")
        return json.loads(body)

    def log_file_lines(self):
        with open(self.log_path) as handle:
            return handle.read().splitlines()

    # -- files -------------------------------------------------------------------------------------

    def test_document_with_base_replaced(self):
        status, headers, body = self.request("/vast/inline.xml")
        self.assertEqual(status, 200)
        self.assertEqual(headers["content-type"], "application/xml")
        self.assertNotIn(b"{{BASE}}", body)
        root = ET.fromstring(body)
        self.assertEqual(root.find("Ad/InLine/Impression").text, self.base + "/beacon/final/impression")
        status, headers, body = self.request("/pod.vmap")
        self.assertEqual((status, headers["content-type"]), (200, "application/xml"))
        self.assertIn((self.base + "/vast/inline.xml").encode(), body)
        self.assertEqual([(e["path"], e["kind"], e["status"]) for e in self.log()],
                         [("/vast/inline.xml", "document", 200), ("/pod.vmap", "document", 200)])

    def test_media_whole_and_ranges(self):
        status, headers, body = self.request("/media/ad.mp4")
        self.assertEqual((status, headers["content-type"], body), (200, "video/mp4", self.mp4))
        etag = headers["etag"]
        self.assertTrue(etag)
        status, headers, body = self.request("/media/ad.mp4", headers={"Range": "bytes=100-1099"})
        self.assertEqual(status, 206)
        self.assertEqual(headers["content-range"], "bytes 100-1099/10000")
        self.assertEqual(headers["content-length"], "1000")
        self.assertEqual(headers["etag"], etag)
        self.assertEqual(body, self.mp4[100:1100])
        status, headers, body = self.request("/media/ad.mp4", headers={"Range": "bytes=9990-"})
        self.assertEqual((status, headers["content-range"], body), (206, "bytes 9990-9999/10000", self.mp4[9990:]))
        status, headers, body = self.request("/media/ad.mp4", headers={"Range": "bytes=9000-20000"})
        self.assertEqual((status, headers["content-range"]), (206, "bytes 9000-9999/10000"))
        status, headers, body = self.request("/media/ad.mp4", headers={"Range": "bytes=-16"})
        self.assertEqual((status, body), (206, self.mp4[-16:]))
        status, headers, _ = self.request("/media/ad.mp4", headers={"Range": "bytes=10000-10010"})
        self.assertEqual((status, headers["content-range"]), (416, "bytes */10000"))
        self.assertEqual([(e["kind"], e["status"]) for e in self.log()],
                         [("media", 200), ("media", 206), ("media", 206), ("media", 206), ("media", 206),
                          ("media", 416)])

    def test_symbolic_link_under_root(self):
        status, headers, body = self.request("/media/linked.mp4", headers={"Range": "bytes=10-19"})
        self.assertEqual((status, headers["content-range"], body), (206, "bytes 10-19/5000", self.mp4[10:20]))

    def test_head(self):
        status, headers, body = self.request("/media/ad.mp4", method="HEAD")
        self.assertEqual((status, headers["content-length"], body), (200, "10000", b""))
        self.assertIn("etag", headers)
        status, headers, body = self.request("/media/ad.mp4", method="HEAD", headers={"Range": "bytes=0-1"})
        self.assertEqual((status, headers["content-range"], body), (206, "bytes 0-1/10000", b""))
        status, headers, body = self.request("/vast/inline.xml", method="HEAD")
        self.assertEqual((status, body), (200, b""))
        self.assertEqual(int(headers["content-length"]), len(self.request("/vast/inline.xml")[2]))

    def test_missing_and_traversal(self):
        secret = os.path.relpath(os.path.join(self.outside, "secret.txt"), self.root)
        paths = ["/missing.xml", "/media", "/" + secret, "/../" + os.path.basename(self.outside) + "/secret.txt",
                 "/vast/%2e%2e/" + secret.replace("..", "%2e%2e"), "/vast/../vast/inline.xml"]
        for path in paths:
            status, _, body = self.request(path)
            self.assertEqual(status, 404, path)
            self.assertNotIn(b"secret", body)

    # -- query parameters --------------------------------------------------------------------------

    def test_status_invalid_empty_delay(self):
        status, _, body = self.request("/vast/inline.xml?status=503")
        self.assertEqual((status, body), (503, b""))
        status, _, body = self.request("/chain/2/vast/inline.xml?status=500")
        self.assertEqual((status, body), (500, b""))
        status, headers, body = self.request("/vast/inline.xml?invalid=1")
        self.assertEqual((status, headers["content-type"]), (200, "application/xml"))
        self.assertEqual(body, b'<VAST version="4.0"><Ad>')
        with self.assertRaises(ET.ParseError):
            ET.fromstring(body)
        status, _, body = self.request("/vast/inline.xml?empty=1")
        root = ET.fromstring(body)
        self.assertEqual((status, root.tag, root.get("version"), len(root)), (200, "VAST", "4.0", 0))
        started = time.monotonic()
        status, _, _ = self.request("/vast/inline.xml?delay_ms=300")
        self.assertEqual(status, 200)
        self.assertGreaterEqual(time.monotonic() - started, 0.3)
        self.assertEqual([(e["path"], e["status"]) for e in self.log()],
                         [("/vast/inline.xml?status=503", 503), ("/chain/2/vast/inline.xml?status=500", 500),
                          ("/vast/inline.xml?invalid=1", 200), ("/vast/inline.xml?empty=1", 200),
                          ("/vast/inline.xml?delay_ms=300", 200)])

    # -- chain -------------------------------------------------------------------------------------

    def test_chain_depth_three_with_delay(self):
        path = "/chain/3/vast/inline.xml?delay_ms=150"
        ids = []
        started = time.monotonic()
        while True:
            hop_started = time.monotonic()
            status, headers, body = self.request(path)
            self.assertEqual((status, headers["content-type"]), (200, "application/xml"))
            self.assertGreaterEqual(time.monotonic() - hop_started, 0.15)
            root = ET.fromstring(body)
            if root.tag == "VAST":  # the final file, without namespace
                ids.append(root.find("Ad").get("id"))
                break
            self.assertEqual((root.tag, root.get("version")), (NS + "VAST", "4.0"))
            ad = root.find(NS + "Ad")
            wrapper = ad.find(NS + "Wrapper")
            ids.append(ad.get("id"))
            beacon = "%s/beacon/%s" % (self.base, ad.get("id"))
            self.assertEqual(wrapper.find(NS + "Impression").text, beacon + "/impression")
            self.assertEqual(wrapper.find(NS + "Error").text, beacon + "/error?code=[ERRORCODE]")
            self.assertIsNotNone(wrapper.find(NS + "AdSystem"))
            tracking = wrapper.findall("%sCreatives/%sCreative/%sLinear/%sTrackingEvents/%sTracking" % ((NS,) * 5))
            self.assertEqual([(t.get("event"), t.text) for t in tracking],
                             [(e, beacon + "/" + e) for e in
                              ("start", "firstQuartile", "midpoint", "thirdQuartile", "complete")])
            uri = wrapper.find(NS + "VASTAdTagURI").text
            self.assertTrue(uri.startswith(self.base), uri)
            path = uri[len(self.base):]
        self.assertEqual(ids, ["w3", "w2", "w1", "final"])
        self.assertGreaterEqual(time.monotonic() - started, 0.6)
        self.assertEqual([(e["path"], e["kind"]) for e in self.log()],
                         [("/chain/%d/vast/inline.xml?delay_ms=150" % d, "document") for d in (3, 2, 1, 0)])

    def test_chain_without_delay_and_missing_final(self):
        status, _, body = self.request("/chain/1/vast/inline.xml")
        uri = ET.fromstring(body).find("%sAd/%sWrapper/%sVASTAdTagURI" % ((NS,) * 3)).text
        self.assertEqual(uri, self.base + "/chain/0/vast/inline.xml")
        self.assertEqual(self.request("/chain/0/nope.xml")[0], 404)
        self.assertEqual(self.request("/chain/x/vast/inline.xml")[0], 404)

    # -- beacons and the log -----------------------------------------------------------------------

    def test_beacons_logged_and_log_file(self):
        before = len(self.log_file_lines())
        for path in ("/beacon/w1/impression", "/beacon/w1/error?code=[ERRORCODE]", "/beacon/w1/error?code=303"):
            status, _, body = self.request(path)
            self.assertEqual((status, body), (204, b""))
        self.assertEqual(self.request("/beacon/x", method="HEAD")[0], 204)
        entries = self.log()
        self.assertEqual([(e["path"], e["kind"], e["status"]) for e in entries],
                         [("/beacon/w1/impression", "beacon", 204),
                          ("/beacon/w1/error?code=[ERRORCODE]", "beacon", 204),
                          ("/beacon/w1/error?code=303", "beacon", 204),
                          ("/beacon/x", "beacon", 204)])
        for entry in entries:
            self.assertEqual(sorted(entry), ["kind", "path", "status", "t"])
            self.assertIsInstance(entry["t"], float)
        self.assertEqual([e["t"] for e in entries], sorted(e["t"] for e in entries))
        lines = [json.loads(line) for line in self.log_file_lines()]
        self.assertEqual(lines[before:], entries)  # /_log and /_reset are in neither
        self.assertEqual(self.request("/_reset")[0], 204)
        self.assertEqual(self.log(), [])
        self.request("/favicon.ico")
        self.assertEqual([(e["kind"], e["status"]) for e in self.log()], [("other", 404)])

    def test_concurrent_requests(self):
        results = []

        def fetch(path):
            results.append(self.request(path)[0])

        threads = [threading.Thread(target=fetch, args=("/chain/%d/vast/inline.xml?delay_ms=500" % (i % 3),))
                   for i in range(8)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        self.assertEqual(results, [200] * 8)
        self.assertLess(elapsed, 3.0)  # serially: 4 s
        entries = self.log()
        self.assertEqual(len(entries), 8)
        self.assertLess(max(e["t"] for e in entries) - min(e["t"] for e in entries), 1.0)  # serially: 3.5 s


if __name__ == "__main__":
    unittest.main()
