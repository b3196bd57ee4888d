#!/usr/bin/env python3
"""The sample player in a real browser: `CompositorDemo preview` driven by headless Chromium.

Serves Fixtures/demo-web.json with the demo, opens the page in headless Chromium (driven over the
DevTools protocol on a pipe: no Python packages needed), and plays the scenario of the reference
sample app against the library's PlaybackSession with a real video clock:

    requested composition (what the session keeps; the video's keyframe cuts are mapped to it)
    0    5            13.5      19.5  22.5          34         47      53
    |a1  |feature 0-8.5 |a2      |a3   |feature 8.5-20|extra 20-33|a4     |
     pre (skippable after 3 s)  mid1 (once, not skippable)              post

 1. start: "Ad 1 of 1", the skip button counting down ("Skip in 3"), label 00:00/00:33;
 2. play through the pre-roll: its quartiles, its end, content resumes at content 0;
 3. seek past the unplayed mid-roll to content 15: snapback plays mid1 ("Ad 1 of 2", no skip
    buttons, a seek out of it refused), then the target, content 15; mid1 is `once`, so it leaves
    the timeline (a new video) and its marker goes;
 4. rewind over where mid1 was, to content 3: no break plays;
 5. "Schedule now" at content ~4: a new break plays at once, then content resumes where it stopped;
 6. seek to content 31, play into the post-roll, "Skip ad": the break ends skipped, playback ends.

Also checks the server's byte ranges and refusals, and its Host and Origin checks (the timeouts
and the bound on connections: Tests/CompositorDemoTests/PreviewServerTests.swift). `--screenshot FILE` saves the page during mid1.

Usage: python3 Tests/preview/preview_test.py [--demo PATH] [--chromium PATH] [--screenshot FILE]
(about 20 s; needs Debian's `chromium`; `.ci/run` installs it and runs this).
Exit 0 when every check passes; 1 with the failed checks listed.
"""
import argparse
import base64
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what, flush=True)
    if not condition:
        failures.append(what)
    return condition


class Browser:
    """Headless Chromium over --remote-debugging-pipe (fd 3: commands in, fd 4: replies out)."""

    def __init__(self, chromium, profile):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()
        # Out of the way of 3 and 4 before the child puts them there.
        high_read, high_write = os.dup(to_browser_read) + 100, os.dup(from_browser_write) + 100
        os.dup2(to_browser_read, high_read)
        os.dup2(from_browser_write, high_write)

        def child():
            os.dup2(high_read, 3)
            os.dup2(high_write, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--mute-audio", "--autoplay-policy=no-user-gesture-required", "--no-first-run",
             "--window-size=700,760", f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            pass_fds=(3, 4), preexec_fn=child, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (to_browser_read, from_browser_write, high_read, high_write):
            os.close(fd)
        self.buffer = b""
        self.next_id = 0
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next((t["targetId"] for t in targets if t["type"] == "page"), None)
        if page is None:
            page = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=page, flatten=True)["sessionId"]

    def call(self, method, session=None, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_browser, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed its DevTools pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def page(self, method, **params):
        return self.call(method, session=self.session, **params)

    def js(self, expression):
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression, what, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.05)
        check(False, f"{what} (waited {timeout} s for {expression})")
        raise SystemExit(report())

    def close(self):
        self.process.kill()
        self.process.wait()


def report():
    if failures:
        print(f"\n{len(failures)} check(s) failed:", *failures, sep="\n  ")
        return 1
    print("\nevery check passed")
    return 0


def events(browser, since=0):
    return browser.js(f"preview.events.slice({since})")


def names(evs):
    return [e["event"] + ("" if "adID" not in e else ":" + e["adID"]) + ("" if "quartile" not in e else str(e["quartile"])) for e in evs]


def text(browser, element):
    return browser.js(f"document.getElementById({json.dumps(element)}).textContent")


def shown(browser, element):
    return browser.js(f"getComputedStyle(document.getElementById({json.dumps(element)})).display !== 'none'")


def http(url, method="GET", headers=None):
    """`url`'s reply; a request other than a GET carries the page's own Origin, as a browser's does
    (the demo refuses a POST without it)."""
    headers = dict(headers or {})
    if method != "GET":
        headers.setdefault("Origin", re.match(r"http://[^/]+", url).group(0))
    request = urllib.request.Request(url, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def server_checks(base):
    state = json.loads(http(base + "state")[2])
    video = base + state["video"].lstrip("/")
    status, headers, body = http(video, headers={"Range": "bytes=4-11"})
    check(status == 206 and len(body) == 8 and body[:4] == b"ftyp",
          f"a byte range of the video is 206 with those bytes (got {status}, {body!r})")
    size = int(headers.get("Content-Range", "/0").split("/")[-1])
    status, headers, _ = http(video, headers={"Range": f"bytes={size}-"})
    check(status == 416 and headers.get("Content-Range") == f"bytes */{size}", f"a range past the end is 416 (got {status})")
    check(http(base + "video/99.mp4")[0] == 404, "an unknown video is 404")
    check(http(base + "tick?time=1", method="POST")[0] == 200, "a tick without its epoch is answered")
    _, _, body = http(base + f"tick?epoch={state['epoch'] - 1}&generation={state['generation']}&time=1", method="POST")
    check(json.loads(body).get("ignoredTick") is True, "a tick of an old epoch is ignored")
    _, _, body = http(base + "seek", method="POST")
    check("refused" in json.loads(body), "a seek without a time is refused, with a reason")
    check(http(base + "nothing", method="DELETE")[0] == 405, "another method is 405")
    # A page that rebound its own name to 127.0.0.1 (DNS rebinding), and another site's POST.
    port = base.rstrip("/").rsplit(":", 1)[1]
    status, _, body = http(base + "state", headers={"Host": "evil.example:" + port})
    check(status == 421 and b"evil.example" in body, f"a Host other than this server's is refused (got {status}, {body!r})")
    check(http(base + "skip-ad", method="POST", headers={"Origin": "http://evil.example"})[0] == 403,
          "another site's POST is refused")
    status = http(base + "state", headers={"Host": "localhost:" + port})[0]
    check(status == 200, f"localhost:PORT is this server too (got {status})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--demo", help="the CompositorDemo binary (default: built now by `swift build`)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser") or "chromium")
    parser.add_argument("--screenshot", help="save a PNG of the page while mid1 plays")
    options = parser.parse_args()
    if options.demo is None:
        subprocess.run(["swift", "build", "--product", "CompositorDemo"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        folder = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True)
        options.demo = str(pathlib.Path(folder.stdout.strip()) / "CompositorDemo")

    demo = subprocess.Popen([options.demo, "preview", str(ROOT / "Fixtures/demo-web.json"), "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    line = demo.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not match:
        print(f"the demo did not print its address: {line!r}")
        demo.kill()
        return 1
    base = match.group(0)
    print(f"preview at {base}")
    profile = tempfile.mkdtemp(prefix="compositor-preview-test-")
    browser = Browser(options.chromium, profile)
    try:
        load_failure(browser, base)
        scenario(browser, base, options.screenshot)
        server_checks(base)
    finally:
        browser.close()
        demo.kill()
        demo.wait()
        shutil.rmtree(profile, ignore_errors=True)
    return report()


def load_failure(b, base):
    """Issue 53: with the video blocked, the page still draws the timeline and says why it cannot play."""
    b.page("Network.enable")
    b.page("Network.setBlockedURLs", urls=["*/video/*"])
    b.page("Page.navigate", url=base)
    # Null-safe: right after Page.navigate the old document (or a blank one) may still be the page.
    b.wait("(document.getElementById('notice')?.textContent ?? '').includes('could not be loaded')",
           "a video that cannot load is said", timeout=15)
    check(text(b, "mainLabel") == "00:00/00:33", f"load failure: the bars are drawn ({text(b, 'mainLabel')!r})")
    check("/video/" in text(b, "notice"), f"load failure: the notice names the video ({text(b, 'notice')!r})")
    b.page("Network.setBlockedURLs", urls=[])
    b.page("Network.disable")


def scenario(b, base, screenshot):
    b.page("Page.navigate", url=base)
    # 1. The start: the pre-roll, its skip button counting down.
    b.wait("window.preview && preview.events.length >= 2 && preview.settled()", "the session starts")
    check(names(events(b))[:2] == ["breakStarted", "adStarted:a1"], f"start: the pre-roll starts ({names(events(b))})")
    check(text(b, "adBadge") == "Ad 1 of 1" and shown(b, "adBadge"), f"start: 'Ad 1 of 1' shown ({text(b, 'adBadge')!r})")
    check(text(b, "mainLabel") == "00:00/00:33", f"start: the label is 00:00/00:33 ({text(b, 'mainLabel')!r})")
    check(b.js("document.getElementById('skipAd').disabled") and text(b, "skipAd").startswith("Skip in "),
          f"start: the skip button waits ({text(b, 'skipAd')!r})")
    b.wait("!document.getElementById('skipAd').disabled", "the pre-roll becomes skippable after 3 s", timeout=10)
    check(b.js("preview.bars.ad.position") >= 3, "the skip button is enabled only from 3 s into the ad")

    # 2. Play through the pre-roll (at 2x from here).
    b.js("document.getElementById('rate').value = '2'; document.getElementById('rate').dispatchEvent(new Event('change'))")
    b.wait("preview.events.some(e => e.event === 'contentResumed')", "content resumes after the pre-roll")
    got = names(events(b))
    check(got[:7] == ["breakStarted", "adStarted:a1", "adQuartile:a11", "adQuartile:a12", "adQuartile:a13", "adEnded:a1", "breakEnded"],
          f"pre-roll: started, quartiles, ended in order ({got})")
    check(not shown(b, "adBadge") and not shown(b, "adBar"), "content: no ad badge or ad bar")
    b.wait("preview.bars.main.position >= 2", "content plays")
    markers = b.js("preview.bars.main.markers")
    check([(m["breakID"], m["played"]) for m in markers] == [("pre", True), ("mid1", False), ("post", False)],
          f"markers: pre played, mid1 and post not ({markers})")

    # 3. Seek past the unplayed mid-roll: snapback.
    mark = len(events(b))
    b.js("preview.seek(15)")
    b.wait(f"preview.events.slice({mark}).some(e => e.event === 'adStarted') && preview.settled()", "snapback starts mid1")
    got = events(b, mark)
    check(names(got)[:3] == ["seekAdjusted", "breakStarted", "adStarted:a2"], f"snapback: adjusted, then mid1 ({names(got)})")
    check(got[0].get("requestedTime") is not None and float(got[1]["contentTime"]) == 8.5, "snapback: to mid1 at content 8.5")
    check(text(b, "adBadge") == "Ad 1 of 2", f"mid1: 'Ad 1 of 2' ({text(b, 'adBadge')!r})")
    check(not shown(b, "skip"), "mid1: no skip buttons (skippable: false)")
    if screenshot:
        b.wait("preview.bars.ad && preview.bars.ad.position >= 2", "mid1 plays on")
        data = b.page("Page.captureScreenshot", format="png")["data"]
        pathlib.Path(screenshot).write_bytes(base64.b64decode(data))
        print(f"saved {screenshot}")
    refusals = b.js("preview.refusals.length")
    b.js("preview.seek(25)")
    b.wait(f"preview.refusals.length > {refusals}", "a seek out of mid1 is refused")
    check("cannot be left" in b.js("preview.refusals.at(-1)"), f"mid1: {b.js('preview.refusals.at(-1)')!r}")
    b.wait(f"preview.events.slice({mark}).some(e => e.event === 'contentResumed') && preview.settled()",
           "content resumes at the seek target", timeout=40)
    got = events(b, mark)
    want = ["seekAdjusted", "breakStarted", "adStarted:a2", "adQuartile:a21", "adQuartile:a22", "adQuartile:a23", "adEnded:a2",
            "adStarted:a3", "adQuartile:a31", "adQuartile:a32", "adQuartile:a33", "adEnded:a3", "breakEnded",
            "compositionChanged", "contentResumed"]
    check(names(got) == want, f"mid1 plays through, leaves, content resumes ({names(got)})")
    check(float(got[-1]["contentTime"]) == 15, f"content resumes at the target, 15 ({got[-1]['contentTime']})")
    check(b.js("preview.bars.main.markers.map(m => m.breakID).join()") == "pre,post", "mid1 (once) left the seek bar")
    check(b.js("document.getElementById('video').src.endsWith('/video/2.mp4')"), "the player plays the new composition")
    check(text(b, "mainLabel").startswith("00:15/") or text(b, "mainLabel").startswith("00:16/"),
          f"label at the target ({text(b, 'mainLabel')!r})")

    # 4. Rewind over where mid1 was: no break.
    mark = len(events(b))
    b.js("preview.seek(3)")
    b.wait("preview.settled() && preview.bars.main.position >= 3.5 && preview.bars.main.position < 8",
           "playback goes on from content 3")
    b.wait("preview.bars.main.position >= 9.5", "playback passes content 8.5", timeout=20)
    check(not any(e["event"] == "breakStarted" for e in events(b, mark)), f"no break after the rewind ({names(events(b, mark))})")

    # 5. Schedule now.
    b.wait("preview.settled()", "settled before Schedule now")
    mark = len(events(b))
    b.js("document.getElementById('scheduleNow').click()")
    b.wait(f"preview.events.slice({mark}).some(e => e.event === 'adStarted') && preview.settled()", "Schedule now plays an ad")
    got = events(b, mark)
    check(names(got)[:3] == ["compositionChanged", "breakStarted", "adStarted:now-1-ad"], f"Schedule now: a new break at once ({names(got)}; refused: {b.js('preview.refusals')})")
    at = float(got[1]["contentTime"])
    check(text(b, "adBadge") == "Ad 1 of 1", "Schedule now: 'Ad 1 of 1'")
    check(b.js("preview.bars.main.markers.some(m => m.breakID === 'now-1')"), "the new break has a marker")
    b.wait(f"preview.events.slice({mark}).some(e => e.event === 'contentResumed')", "content resumes after the new break")
    resumed = next(e for e in events(b, mark) if e["event"] == "contentResumed")
    check(float(resumed["contentTime"]) == at, f"content resumes where it stopped ({resumed['contentTime']} vs {at})")

    # 6. The post-roll, skipped; the end.
    b.wait("preview.settled()", "settled before the last seek")
    mark = len(events(b))
    b.js("preview.seek(31)")
    b.wait(f"preview.events.slice({mark}).some(e => e.event === 'adStarted' && e.adID === 'a4') && preview.settled()",
           "the post-roll starts")
    check(shown(b, "skip") and not b.js("document.getElementById('skipAd').disabled"), "post-roll: skippable at once")
    b.js("document.getElementById('skipAd').click()")
    b.wait("preview.ended", "playback ends after the skip")
    got = names(events(b, mark))
    check(got[-4:] == ["adStarted:a4", "adEnded:a4", "breakEnded", "ended"] and events(b, mark)[-2]["skipped"] is True,
          f"post-roll skipped, then the end ({got})")
    ticks, ignored = b.js("preview.ticks"), b.js("preview.ignoredTicks")
    print(f"      {ticks} timeupdates, {ignored} stale ticks ignored by the demo")


if __name__ == "__main__":
    sys.exit(main())
