#!/usr/bin/env python3
"""An independent reading of VAST documents, to judge the Swift VAST parser against.

    python3 vast_summary.py FILE...

Prints one JSON object {"FILE": summary, ...}, keys as given on the command line. Standard library
only (xml.etree.ElementTree). Per file the summary is one of:

  {"malformed": "<ElementTree's message>"}     not well-formed XML
  {"unreadable": "<OS error>"}                  the file could not be read
  {"unsupportedVersion": "<version or 1.0>"}    VAST 1 (root <VideoAdServingTemplate>, or VAST@version "1...")
  {"notVast": "<root element local name>"}      well-formed, but the root is neither of those
  {"version": "4.0" (VAST@version as written, or null),
   "ads": [{"id": str|null, "sequence": int|null, "kind": "inline"|"wrapper"|null,
            "adTagURI": str|null, "impressions": [str], "errors": [str],
            "linear": null | {"duration": str|null, "skipoffset": str|null,
                              "mediaFiles": [{"url", "type", "delivery", "width", "height",
                                              "bitrate", "apiFramework"}],
                              "tracking": {"event" or "progress@OFFSET": [str]},
                              "clickThrough": str|null},
            "nonLinearOnly": bool, "universalAdIds": [{"idRegistry", "value"}],
            "verifications": int}]}

Reading rules (the judge's, stated so the Swift side can match them):
  - Element names are compared by local name: VAST 4 documents put everything in the default
    namespace http://www.iab.com/VAST, VAST 2/3 documents in none.
  - A text value is the element's whole text content (CDATA included, comments dropped), stripped of
    XML whitespace (space, tab, CR, LF) at both ends. Only that; no entity or URL decoding beyond XML's.
  - "ads" are the <Ad> children of <VAST>, in order. "kind" is the first <InLine> or <Wrapper> child
    (null if neither; the other fields are then empty).
  - "sequence": Ad@sequence as an integer (null if absent or not an integer).
  - "adTagURI": Wrapper/VASTAdTagURI text (null for InLine, or if absent or empty).
  - "impressions" and "errors": the <Impression> and <Error> children of InLine/Wrapper only (not the
    ones of creatives, verifications or the VAST root), in document order, empty texts dropped.
  - "linear": the FIRST Creatives/Creative/Linear of the ad (one Creative holds at most one).
      duration: Linear/Duration text (null if absent or empty); skipoffset: Linear@skipoffset as written.
      mediaFiles: Linear/MediaFiles/MediaFile only (not Mezzanine, InteractiveCreativeFile,
        ClosedCaptionFiles); attributes as written, width/height/bitrate as integers (null if absent or
        not integers); url the text (kept even if empty, as "").
      tracking: Linear/TrackingEvents/Tracking, keyed by @event, "progress@" + @offset for progress
        events with an offset; URLs in document order, empty ones dropped; a Tracking without @event
        is skipped; an event whose URLs are all empty still appears with [].
      clickThrough: Linear/VideoClicks/ClickThrough text (null if absent or empty).
  - "nonLinearOnly": the ad has at least one Creatives/Creative and none of them has a Linear child
    (so an ad with only CompanionAds creatives counts as true).
  - "universalAdIds": every UniversalAdId of the Creative holding the first Linear, in document
    order, with @idRegistry as written (null if absent) and the text as value (the VAST 4.0 @idValue
    is ignored).
  - "verifications": the number of Verification children of InLine/AdVerifications or
    Wrapper/AdVerifications (VAST 4.1+), and of AdVerifications in an
    Extensions/Extension[@type="AdVerifications"] (VAST 2/3 practice).
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

XML_WHITESPACE = " \t\r\n"


def local(tag):
    if not isinstance(tag, str):
        return None
    return tag.rsplit("}", 1)[-1]


def children(element, name):
    return [child for child in element if local(child.tag) == name]


def child(element, name):
    found = children(element, name)
    return found[0] if found else None


def text(element):
    return "".join(element.itertext()).strip(XML_WHITESPACE)


def text_or_none(element):
    if element is None:
        return None
    value = text(element)
    return value if value else None


def integer(value):
    if value is None:
        return None
    value = value.strip(XML_WHITESPACE)
    return int(value) if re.fullmatch(r"[+-]?[0-9]+", value) else None


def urls(elements):
    return [value for value in (text(e) for e in elements) if value]


def summarize_linear(linear):
    tracking = {}
    events = child(linear, "TrackingEvents")
    for entry in children(events, "Tracking") if events is not None else []:
        event = entry.get("event")
        if event is None:
            continue
        if event == "progress" and entry.get("offset") is not None:
            event = "progress@" + entry.get("offset")
        values = tracking.setdefault(event, [])
        value = text(entry)
        if value:
            values.append(value)
    media = child(linear, "MediaFiles")
    media_files = []
    for file in children(media, "MediaFile") if media is not None else []:
        media_files.append({
            "url": text(file),
            "type": file.get("type"),
            "delivery": file.get("delivery"),
            "width": integer(file.get("width")),
            "height": integer(file.get("height")),
            "bitrate": integer(file.get("bitrate")),
            "apiFramework": file.get("apiFramework"),
        })
    clicks = child(linear, "VideoClicks")
    return {
        "duration": text_or_none(child(linear, "Duration")),
        "skipoffset": linear.get("skipoffset"),
        "mediaFiles": media_files,
        "tracking": tracking,
        "clickThrough": text_or_none(child(clicks, "ClickThrough")) if clicks is not None else None,
    }


def summarize_ad(ad):
    body = None
    for element in ad:
        if local(element.tag) in ("InLine", "Wrapper"):
            body = element
            break
    summary = {
        "id": ad.get("id"),
        "sequence": integer(ad.get("sequence")),
        "kind": None,
        "adTagURI": None,
        "impressions": [],
        "errors": [],
        "linear": None,
        "nonLinearOnly": False,
        "universalAdIds": [],
        "verifications": 0,
    }
    if body is None:
        return summary
    summary["kind"] = "inline" if local(body.tag) == "InLine" else "wrapper"
    if summary["kind"] == "wrapper":
        summary["adTagURI"] = text_or_none(child(body, "VASTAdTagURI"))
    summary["impressions"] = urls(children(body, "Impression"))
    summary["errors"] = urls(children(body, "Error"))
    creatives = []
    for container in children(body, "Creatives"):
        creatives.extend(children(container, "Creative"))
    linears = [(creative, l) for creative in creatives for l in children(creative, "Linear")]
    if linears:
        summary["linear"] = summarize_linear(linears[0][1])
        summary["universalAdIds"] = [
            {"idRegistry": u.get("idRegistry"), "value": text(u)}
            for u in children(linears[0][0], "UniversalAdId")
        ]
    summary["nonLinearOnly"] = bool(creatives) and not linears
    containers = children(body, "AdVerifications")
    for extensions in children(body, "Extensions"):
        for extension in children(extensions, "Extension"):
            if extension.get("type") == "AdVerifications":
                containers += children(extension, "AdVerifications")
    summary["verifications"] = sum(len(children(v, "Verification")) for v in containers)
    return summary


def summarize(path):
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        return {"unreadable": str(error)}
    try:
        root = ET.fromstring(data)
    except ET.ParseError as error:
        return {"malformed": str(error)}
    name = local(root.tag)
    version = root.get("version")
    if name == "VideoAdServingTemplate":
        return {"unsupportedVersion": version or "1.0"}
    if name != "VAST":
        return {"notVast": name}
    if version is not None and version.strip(XML_WHITESPACE).startswith("1"):
        return {"unsupportedVersion": version}
    return {"version": version, "ads": [summarize_ad(ad) for ad in children(root, "Ad")]}


def main(paths):
    if not paths:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    json.dump({path: summarize(path) for path in paths}, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
