#!/usr/bin/env python3
"""Writes a VAST 4.1 pod of InLine ads, about TARGET bytes (default 1 MB), to stdout.

    generate_vast.py [TARGET_BYTES]

Each ad is what an ad server sends for a video ad: AdSystem, AdTitle, Description, Advertiser,
Pricing, an Error URL and three Impressions (CDATA, long query strings with macros), AdVerifications
(Open Measurement: JavaScriptResource, VerificationParameters, a verificationNotExecuted tracking
URL), a Linear creative with UniversalAdId, Duration, skipoffset, 13 TrackingEvents (the quartiles,
two progress offsets, pause/resume/mute/unmute/skip/...), VideoClicks, six MediaFiles (MP4 at four
sizes, an HLS stream, a VPAID unit) and a Mezzanine, then a companion creative, and Extensions.
The default namespace is http://www.iab.com/VAST, as the IAB's VAST 4 samples have it. Deterministic.
"""
import random
import sys

TARGET = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
HOST = "https://ads.example.test"
CDN = "https://cdn.example.test"
rng = random.Random(4_1)

EVENTS = ("creativeView", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete",
          "pause", "resume", "mute", "unmute", "skip")
RENDITIONS = ((640, 360, 800, "avc1.4d401e"), (960, 540, 1500, "avc1.4d401f"),
              (1280, 720, 3000, "avc1.64001f"), (1920, 1080, 6000, "avc1.640028"))


def token(n=16):
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))


def beacon(kind, ad, extra=""):
    return ("%s/v1/%s?adid=%s&cb=[CACHEBUSTING]&ts=[TIMESTAMP]&dom=[DOMAIN]&pu=[PAGEURL]&ifa=[IFA]"
            "&cid=%s&sid=%s%s" % (HOST, kind, ad, token(12), token(24), extra))


def ad(n):
    aid = "ad-%05d" % n
    creative = "cr-%05d" % n
    seconds = rng.choice((6, 10, 15, 15, 20, 30))
    lines = []
    w = lines.append
    w('  <Ad id="%s" sequence="%d">' % (aid, n))
    w('    <InLine>')
    w('      <AdSystem version="4.1">BenchServer</AdSystem>')
    w('      <AdTitle><![CDATA[Spring campaign %d: %s]]></AdTitle>' % (n, token(10)))
    w('      <Description><![CDATA[A %d-second spot for the spring range, cut %s.]]></Description>' % (seconds, token(6)))
    w('      <Advertiser id="adv-%d">Advertiser %d</Advertiser>' % (n % 37, n % 37))
    w('      <Pricing model="CPM" currency="USD"><![CDATA[%d.%02d]]></Pricing>' % (rng.randint(1, 40), rng.randint(0, 99)))
    w('      <Error><![CDATA[%s]]></Error>' % beacon("error", aid, "&code=[ERRORCODE]"))
    for i in range(3):
        w('      <Impression id="imp-%d"><![CDATA[%s]]></Impression>' % (i, beacon("impression", aid, "&p=%d" % i)))
    w('      <AdVerifications>')
    w('        <Verification vendor="omid.example.test-%d">' % (n % 5))
    w('          <JavaScriptResource apiFramework="omid" browserOptional="true"><![CDATA[%s/omid/verify-%s.js]]></JavaScriptResource>' % (CDN, token(8)))
    w('          <VerificationParameters><![CDATA[{"campaign":"%s","placement":"%s"}]]></VerificationParameters>' % (token(10), token(10)))
    w('          <TrackingEvents>')
    w('            <Tracking event="verificationNotExecuted"><![CDATA[%s]]></Tracking>' % beacon("verification", aid, "&reason=[REASON]"))
    w('          </TrackingEvents>')
    w('        </Verification>')
    w('      </AdVerifications>')
    w('      <Creatives>')
    w('        <Creative id="%s" sequence="1" adId="%s">' % (creative, token(10)))
    w('          <UniversalAdId idRegistry="ad-id.org">%s</UniversalAdId>' % token(12).upper())
    w('          <Linear skipoffset="00:00:05">')
    w('            <Duration>00:00:%02d.000</Duration>' % seconds)
    w('            <TrackingEvents>')
    for event in EVENTS:
        w('              <Tracking event="%s"><![CDATA[%s]]></Tracking>' % (event, beacon("track", aid, "&e=" + event)))
    for offset in ("00:00:05", "50%"):
        w('              <Tracking event="progress" offset="%s"><![CDATA[%s]]></Tracking>' % (offset, beacon("track", aid, "&e=progress")))
    w('            </TrackingEvents>')
    w('            <VideoClicks>')
    w('              <ClickThrough id="ct"><![CDATA[https://shop.example.test/spring?utm_source=vast&utm_content=%s]]></ClickThrough>' % aid)
    for i in range(2):
        w('              <ClickTracking id="ck-%d"><![CDATA[%s]]></ClickTracking>' % (i, beacon("click", aid, "&k=%d" % i)))
    w('            </VideoClicks>')
    w('            <MediaFiles>')
    for width, height, bitrate, codec in RENDITIONS:
        w('              <MediaFile id="%s-%dp" delivery="progressive" type="video/mp4" width="%d" height="%d" bitrate="%d" '
          'codec="%s" scalable="true" maintainAspectRatio="true"><![CDATA[%s/ads/%s/%s/%dp.mp4]]></MediaFile>'
          % (creative, height, width, height, bitrate, codec, CDN, token(8), creative, height))
    w('              <MediaFile id="%s-hls" delivery="streaming" type="application/x-mpegURL" width="1920" height="1080" '
      'minBitrate="800" maxBitrate="6000"><![CDATA[%s/ads/%s/%s/index.m3u8]]></MediaFile>' % (creative, CDN, token(8), creative))
    w('              <MediaFile id="%s-vpaid" delivery="progressive" type="application/javascript" apiFramework="VPAID" '
      'width="640" height="360"><![CDATA[%s/vpaid/%s.js]]></MediaFile>' % (creative, CDN, token(8)))
    w('              <Mezzanine delivery="progressive" type="video/mp4" width="1920" height="1080"><![CDATA[%s/mezz/%s/%s.mp4]]></Mezzanine>'
      % (CDN, token(8), creative))
    w('            </MediaFiles>')
    w('          </Linear>')
    w('        </Creative>')
    w('        <Creative id="%s-companion" sequence="1">' % creative)
    w('          <CompanionAds>')
    w('            <Companion width="300" height="250">')
    w('              <StaticResource creativeType="image/jpeg"><![CDATA[%s/companion/%s.jpg]]></StaticResource>' % (CDN, token(8)))
    w('              <CompanionClickThrough><![CDATA[https://shop.example.test/spring?c=%s]]></CompanionClickThrough>' % aid)
    w('            </Companion>')
    w('          </CompanionAds>')
    w('        </Creative>')
    w('      </Creatives>')
    w('      <Extensions>')
    w('        <Extension type="waterfall"><Rank>%d</Rank><Floor>%d.00</Floor></Extension>' % (n, rng.randint(1, 9)))
    w('      </Extensions>')
    w('    </InLine>')
    w('  </Ad>')
    return "\n".join(lines) + "\n"


head = '<?xml version="1.0" encoding="UTF-8"?>\n<VAST version="4.1" xmlns="http://www.iab.com/VAST">\n'
tail = "</VAST>\n"
parts = [head]
size = len(head) + len(tail)
n = 0
while size < TARGET:
    n += 1
    text = ad(n)
    parts.append(text)
    size += len(text.encode())
parts.append(tail)
sys.stdout.write("".join(parts))
