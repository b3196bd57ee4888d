#!/usr/bin/env python3
"""Reads one VAST document with Python's xml.etree.ElementTree and prints the best of several runs.

    bench_etree.py FILE RUNS

Two figures, both from the same bytes in memory:
  tree   ElementTree.fromstring: the whole document to an element tree (expat and the C accelerator),
         what XMLParser + the tree builder do on the Swift side;
  walk   fromstring, then a walk of the tree collecting what VASTDocument keeps of each ad (id,
         sequence, AdSystem, AdTitle, Impression/Error URLs, verifications, the first Linear's
         Duration, skipoffset, MediaFiles with their attributes, Mezzanines, TrackingEvents,
         VideoClicks, UniversalAdIds; text trimmed), in Python: the fair equivalent of
         VASTDocument(parsing:).
Prints "tree_seconds=X walk_seconds=Y ads=N media_files=M tracking=T impressions=I".
"""
import sys
import time
import xml.etree.ElementTree as ET


def local(tag):
    return tag.rpartition("}")[2]


def children(node, name):
    return [child for child in node if local(child.tag) == name]


def first(node, name):
    for child in node:
        if local(child.tag) == name:
            return child
    return None


def text(node):
    return (node.text or "").strip(" \t\r\n") if node is not None else ""


def urls(node, name):
    return [t for t in (text(child) for child in children(node, name)) if t]


def verifications(parent):
    result = []
    for container in children(parent, "AdVerifications"):
        for verification in children(container, "Verification"):
            tracking = {}
            events = first(verification, "TrackingEvents")
            for event in children(events, "Tracking") if events is not None else []:
                if text(event):
                    tracking.setdefault(event.get("event", ""), []).append(text(event))
            parameters = first(verification, "VerificationParameters")
            result.append((verification.get("vendor"), urls(verification, "JavaScriptResource"),
                           text(parameters) or None, tracking))
    return result


def linear(parent):
    creatives = first(parent, "Creatives")
    for creative in children(creatives, "Creative") if creatives is not None else []:
        node = first(creative, "Linear")
        if node is None:
            continue
        media = first(node, "MediaFiles")
        files = []
        for file in children(media, "MediaFile") if media is not None else []:
            if not text(file):
                continue
            number = lambda name: int(file.get(name).strip()) if file.get(name, "").strip().isdigit() else None
            files.append(dict(url=text(file), delivery=file.get("delivery", "progressive").lower(), type=file.get("type", ""),
                              width=number("width"), height=number("height"), bitrate=number("bitrate"),
                              minBitrate=number("minBitrate"), maxBitrate=number("maxBitrate"), codec=file.get("codec"),
                              apiFramework=file.get("apiFramework"), id=file.get("id")))
        events = first(node, "TrackingEvents")
        tracking = [(event.get("event", ""), event.get("offset"), text(event))
                    for event in (children(events, "Tracking") if events is not None else []) if text(event)]
        clicks = first(node, "VideoClicks")
        return dict(duration=text(first(node, "Duration")), skipoffset=node.get("skipoffset"), media=files,
                    mezzanines=urls(media, "Mezzanine") if media is not None else [], tracking=tracking,
                    clickThrough=text(first(clicks, "ClickThrough")) if clicks is not None else None,
                    clickTracking=urls(clicks, "ClickTracking") if clicks is not None else [],
                    universalAdIDs=[(u.get("idRegistry", ""), text(u)) for u in children(creative, "UniversalAdId") if text(u)],
                    creativeID=creative.get("id"), creativeAdID=creative.get("adId") or creative.get("AdID"))
    return None


def walk(root):
    ads = []
    for node in children(root, "Ad"):
        inline = first(node, "InLine")
        if inline is None:
            continue
        ads.append(dict(id=node.get("id"), sequence=node.get("sequence"), adSystem=text(first(inline, "AdSystem")),
                        title=text(first(inline, "AdTitle")), impressions=urls(inline, "Impression"),
                        errors=urls(inline, "Error"), linear=linear(inline), verifications=verifications(inline)))
    return dict(version=root.get("version"), ads=ads, errors=urls(root, "Error"))


def main():
    path, runs = sys.argv[1], int(sys.argv[2])
    with open(path, "rb") as handle:
        data = handle.read()
    tree_best = walk_best = float("inf")
    document = None
    for _ in range(runs):
        start = time.perf_counter()
        ET.fromstring(data)
        tree_best = min(tree_best, time.perf_counter() - start)
    for _ in range(runs):
        start = time.perf_counter()
        document = walk(ET.fromstring(data))
        walk_best = min(walk_best, time.perf_counter() - start)
    ads = document["ads"]
    linears = [ad["linear"] for ad in ads if ad["linear"]]
    print("tree_seconds=%.9f walk_seconds=%.9f ads=%d media_files=%d tracking=%d impressions=%d" % (
        tree_best, walk_best, len(ads), sum(len(l["media"]) for l in linears),
        sum(len(l["tracking"]) for l in linears), sum(len(ad["impressions"]) for ad in ads)))


if __name__ == "__main__":
    main()
