/// The preview's page, modelled on the reference framework's sample player: the stitched video,
/// a main seek bar spanning content time only with a marker per break, an ad bar while an ad
/// plays, the player-time label, "Ad 1 of 2", skip buttons where the break allows, "Schedule now",
/// and the session's events.
///
/// The page decides nothing: it reports its video's clock (on `timeupdate`, and at the next
/// boundary the session named, seen by `requestVideoFrameCallback`) and the viewer's actions, and
/// carries out what the demo answers. One request is in flight at a time; a tick is not sent while
/// a request or a seek is under way, and carries the epoch and item it was read in, so the demo can
/// drop a stale one. `window.preview` exposes the events and bars for the browser test.
enum PreviewPage {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <title>Compositor preview</title>
    <style>
      body { margin: 0; background: #111; color: #eee; font: 14px/1.4 system-ui, sans-serif; }
      main { width: 640px; margin: 16px auto; }
      .screen { position: relative; width: 640px; height: 360px; background: #000; }
      video { width: 100%; height: 100%; display: block; }
      #adBadge { position: absolute; right: 10px; top: 10px; padding: 2px 8px; background: #f5c518; color: #111;
                 font-weight: 600; border-radius: 3px; display: none; }
      #skip { position: absolute; right: 10px; bottom: 14px; display: none; gap: 6px; }
      .bar { position: relative; height: 8px; background: #444; border-radius: 4px; margin: 12px 0 4px; cursor: pointer; }
      .bar .fill { position: absolute; left: 0; top: 0; bottom: 0; background: #e33; border-radius: 4px; }
      #adBar { display: none; cursor: default; }
      #adBar .fill { background: #f5c518; }
      .marker { position: absolute; top: -3px; width: 4px; height: 14px; margin-left: -2px; background: #f5c518; }
      .marker.played { background: #888; }
      .row { display: flex; align-items: center; gap: 8px; margin-top: 6px; }
      .label { font-variant-numeric: tabular-nums; }
      button, select { background: #333; color: #eee; border: 1px solid #555; border-radius: 3px; padding: 4px 10px; font: inherit; }
      button:disabled { color: #777; }
      #notice { color: #f88; min-height: 1.4em; }
      #log { height: 180px; overflow-y: auto; background: #1a1a1a; padding: 6px; font: 12px/1.4 ui-monospace, monospace; white-space: pre; }
    </style>
    </head>
    <body>
    <main>
      <div class="screen">
        <video id="video" muted playsinline></video>
        <div id="adBadge"></div>
        <div id="skip"><button id="skipAd">Skip ad</button><button id="skipBreak">Skip break</button></div>
      </div>
      <div class="bar" id="adBar"><div class="fill"></div></div>
      <div class="row" id="adRow" style="display:none"><span id="adTitle"></span><span class="label" id="adLabel"></span></div>
      <div class="bar" id="mainBar" title="content time only: breaks are the markers"><div class="fill"></div></div>
      <div class="row">
        <button id="play">Play</button>
        <span class="label" id="mainLabel">00:00/00:00</span>
        <span style="flex:1"></span>
        <button id="scheduleNow">Schedule now</button>
        <button id="sound">Sound off</button>
        <select id="rate"><option value="1">1x</option><option value="2">2x</option><option value="4">4x</option></select>
      </div>
      <div id="notice"></div>
      <div id="log"></div>
    </main>
    <script>
    "use strict";
    const video = document.getElementById("video");
    const $ = id => document.getElementById(id);
    const preview = window.preview = { events: [], bars: null, ended: false, refusals: [], ticks: 0, ignoredTicks: 0 };
    let epoch = 0, generation = 0, nextBoundary = null, inFlight = 0, applying = false, wantPlaying = true;

    // One request at a time, in order; a tick is dropped instead of queued while anything is under way.
    let queue = Promise.resolve();
    function send(path, params = {}, isTick = false) {
      if (isTick && (inFlight > 0 || applying || video.seeking)) return;
      inFlight += 1;
      queue = queue.then(async () => {
        const query = new URLSearchParams(params).toString();
        const response = await fetch(path + (query ? "?" + query : ""), { method: "POST" });
        await apply(await response.json());
      }).catch(error => notice(error instanceof Error ? error.message : String(error))).finally(() => { inFlight -= 1; });
      return queue;
    }

    function tick(time = video.currentTime) {
      send("/tick", { epoch, generation, time: time.toFixed(6) }, true);
    }

    async function apply(reply) {
      applying = true;
      // The bars first: the timeline is known before the video has loaded (or if it never does).
      draw(reply.bars);
      try {
        for (const command of reply.commands) {
          if ("load" in command) await load(command.load, command.at);
          else if ("seek" in command) await seek(command.seek);
        }
      } finally { applying = false; }
      epoch = reply.epoch;
      generation = reply.generation;
      nextBoundary = reply.nextBoundary;
      if (reply.ignoredTick) preview.ignoredTicks += 1;
      for (const event of reply.events) logEvent(event);
      if (reply.refused) { preview.refusals.push(reply.refused); notice(reply.refused); }
      if (reply.error) notice(reply.error);
      preview.ended = reply.ended;
      draw(reply.bars);
      if (reply.commands.length && wantPlaying && !reply.ended) video.play().catch(() => {});
    }

    function once(target, name) { return new Promise(resolve => target.addEventListener(name, resolve, { once: true })); }

    async function seek(time) {
      const seeked = once(video, "seeked");
      video.currentTime = time;
      await seeked;
    }

    // What went wrong with the video, in words (MediaError codes 1-4).
    function loadFailure(url) {
      const error = video.error;
      const kinds = { 1: "loading was aborted", 2: "a network error", 3: "it could not be decoded", 4: "the browser cannot play its format" };
      const why = error ? (kinds[error.code] || "error " + error.code) + (error.message ? " (" + error.message + ")" : "") : "an unknown error";
      return "the video " + url + " could not be loaded: " + why;
    }

    async function load(url, at) {
      if (!video.src.endsWith(url)) {
        const ready = Promise.race([
          once(video, "loadedmetadata"),
          once(video, "error").then(() => { throw new Error(loadFailure(url)); }),
        ]);
        video.src = url;
        await ready;
        video.playbackRate = Number($("rate").value);
      }
      await seek(at);
    }

    function seconds(text) { return Number(text); }

    function draw(bars) {
      preview.bars = bars;
      const main = bars.main;
      $("mainLabel").textContent = main.label;
      $("mainBar").querySelector(".fill").style.width = (100 * seconds(main.position) / seconds(main.duration)) + "%";
      for (const old of $("mainBar").querySelectorAll(".marker")) old.remove();
      for (const marker of main.markers) {
        const mark = document.createElement("div");
        mark.className = "marker" + (marker.played ? " played" : "");
        mark.style.left = (100 * seconds(marker.position) / seconds(main.duration)) + "%";
        mark.title = marker.breakID + (marker.played ? " (played)" : "");
        $("mainBar").appendChild(mark);
      }
      const ad = bars.ad;
      for (const id of ["adBar", "adBadge", "skip"]) $(id).style.display = ad ? (id === "skip" ? "flex" : "block") : "none";
      $("adRow").style.display = ad ? "flex" : "none";
      if (!ad) return;
      $("adBadge").textContent = ad.title;
      $("adTitle").textContent = ad.title;
      $("adLabel").textContent = ad.label;
      $("adBar").querySelector(".fill").style.width = (100 * seconds(ad.position) / seconds(ad.duration)) + "%";
      const skippable = ad.skip === "now";
      $("skip").style.display = ad.skip === "never" ? "none" : "flex";
      for (const id of ["skipAd", "skipBreak"]) $(id).disabled = !skippable;
      $("skipAd").textContent = skippable ? "Skip ad" : "Skip in " + Math.ceil(seconds(ad.skipIn));
    }

    function logEvent(event) {
      preview.events.push(event);
      const details = [event.breakID, event.adID && `${event.adID} ${event.adIndex}/${event.podSize}`,
                       event.quartile && `q${event.quartile}`, event.skipped && "skipped", event.first === false && "again"]
        .filter(Boolean).join(" ");
      const line = `${Number(event.compositionTime).toFixed(3).padStart(8)} s  content ${Number(event.contentTime).toFixed(3).padStart(7)} s  ${event.event} ${details}\n`;
      const log = $("log");
      log.textContent += line;
      log.scrollTop = log.scrollHeight;
    }

    function notice(text) { $("notice").textContent = text; }

    video.addEventListener("timeupdate", () => { preview.ticks += 1; tick(); });
    video.addEventListener("ended", () => tick(video.duration));
    // A boundary (an ad's end, a quartile) is reported on the frame that reaches it, not on the next timeupdate.
    function watchFrames() {
      video.requestVideoFrameCallback((now, frame) => {
        if (nextBoundary !== null && frame.mediaTime >= Number(nextBoundary)) tick();
        watchFrames();
      });
    }
    watchFrames();

    $("mainBar").addEventListener("click", event => {
      const bars = preview.bars;
      if (!bars) return;
      const box = $("mainBar").getBoundingClientRect();
      const fraction = Math.min(Math.max((event.clientX - box.left) / box.width, 0), 1);
      send("/seek", { content: (fraction * seconds(bars.main.duration)).toFixed(6) });
    });
    $("skipAd").addEventListener("click", () => send("/skip-ad"));
    $("skipBreak").addEventListener("click", () => send("/skip-break"));
    $("scheduleNow").addEventListener("click", () => send("/schedule-now"));
    $("play").addEventListener("click", () => {
      wantPlaying = video.paused;
      if (wantPlaying) video.play().catch(error => notice(String(error))); else video.pause();
    });
    video.addEventListener("play", () => { $("play").textContent = "Pause"; });
    video.addEventListener("pause", () => { $("play").textContent = "Play"; });
    $("sound").addEventListener("click", () => {
      video.muted = !video.muted;
      $("sound").textContent = video.muted ? "Sound off" : "Sound on";
    });
    $("rate").addEventListener("change", () => { video.playbackRate = Number($("rate").value); });
    // Seeks for the test and for the keyboard: preview.seek(contentSeconds).
    preview.seek = content => send("/seek", { content: Number(content).toFixed(6) });
    preview.settled = () => inFlight === 0 && !applying && !video.seeking;

    send("/start");
    </script>
    </body>
    </html>
    """#
}
