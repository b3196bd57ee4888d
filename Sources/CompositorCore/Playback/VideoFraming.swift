/// A 2-D affine transform, `[a b 0; c d 0; tx ty 1]` applied to row vectors `[x y 1]`, as
/// `CGAffineTransform` is (without CoreGraphics, so the decision stays portable).
package struct AffineTransform2D: Hashable, Sendable {
    package var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

    package init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    package static let identity = AffineTransform2D(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// `self`, then `next`.
    package func concatenating(_ next: AffineTransform2D) -> AffineTransform2D {
        AffineTransform2D(
            a: a * next.a + b * next.c, b: a * next.b + b * next.d,
            c: c * next.a + d * next.c, d: c * next.b + d * next.d,
            tx: tx * next.a + ty * next.c + next.tx, ty: tx * next.b + ty * next.d + next.ty)
    }

    package func applied(to point: (x: Double, y: Double)) -> (x: Double, y: Double) {
        (point.x * a + point.y * c + tx, point.x * b + point.y * d + ty)
    }
}

/// How a source's video track presents: its coded size and the transform that orients it
/// (`naturalSize` and `preferredTransform`).
package struct VideoGeometry: Hashable, Sendable {
    package var width: Double
    package var height: Double
    package var transform: AffineTransform2D

    package init(width: Double, height: Double, transform: AffineTransform2D = .identity) {
        self.width = width
        self.height = height
        self.transform = transform
    }

    /// The picture's corners after `transform`: its box on screen.
    var box: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        let corners = [(0.0, 0.0), (width, 0.0), (0.0, height), (width, height)].map { transform.applied(to: ($0.0, $0.1)) }
        return (corners.map(\.x).min() ?? 0, corners.map(\.y).min() ?? 0, corners.map(\.x).max() ?? 0, corners.map(\.y).max() ?? 0)
    }

    /// The size on screen (a portrait clip recorded sideways is taller than wide).
    package var displaySize: (width: Double, height: Double) { Self.size(of: box) }

    static func size(of box: (minX: Double, minY: Double, maxX: Double, maxY: Double)) -> (width: Double, height: Double) {
        (box.maxX - box.minX, box.maxY - box.minY)
    }
}

/// How a composition's one video track shows sources of different sizes and orientations.
///
/// One geometry for every video source: the track takes its transform (`preferredTransform`), and
/// the player shows it as a single clip. Otherwise a video composition: the frame is the first
/// content source's picture as shown (else the first video source's), and each segment's picture
/// is oriented, scaled to fit (aspect kept) and centred in it.
///
/// ```
/// frame 1920x1080 (content)     ad 1080x1920 (portrait)      ad 1280x720
/// +----------------------+      +------[####]------+        +======================+
/// |       content        |      |      [ ad ]      |        |   scaled 1.5x        |
/// +----------------------+      +------[####]------+        +======================+
/// ```
package enum VideoFraming: Equatable, Sendable {
    case uniform(AffineTransform2D)
    case composed(width: Double, height: Double, layers: [Layer])

    /// One instruction: what shows during `range` (one per segment, back to back over the whole
    /// composition, as a video composition's instructions must be), and how.
    package struct Layer: Equatable, Sendable {
        package var range: MediaTimeRange
        /// `nil` where the segment's source has no video (black).
        package var transform: AffineTransform2D?
    }

    /// The framing of `composition`, or `nil` when no source has video. `geometry` gives each
    /// source's video geometry (`nil`: no video track).
    package static func plan(for composition: Composition, geometry: (MediaLocation) -> VideoGeometry?) -> VideoFraming? {
        let shapes = composition.segments.map { geometry($0.source) }
        let distinct = shapes.compactMap { $0 }.reduce(into: [VideoGeometry]()) { if !$0.contains($1) { $0.append($1) } }
        guard let first = distinct.first else { return nil }
        if distinct.count == 1 { return .uniform(first.transform) }

        let frameSource = zip(composition.segments, shapes).first { !$0.0.isAd && $0.1 != nil }?.1 ?? first
        let frame = frameSource.displaySize
        let layers = zip(composition.segments, shapes).map { segment, shape in
            Layer(range: segment.compositionRange, transform: shape.map { fitted($0, into: frame) })
        }
        return .composed(width: frame.width, height: frame.height, layers: layers)
    }

    /// `geometry`'s transform, then moved to the origin, scaled to fit `frame` and centred in it.
    static func fitted(_ geometry: VideoGeometry, into frame: (width: Double, height: Double)) -> AffineTransform2D {
        let box = geometry.box
        let shown = VideoGeometry.size(of: box)
        guard shown.width > 0, shown.height > 0 else { return geometry.transform }
        let scale = min(frame.width / shown.width, frame.height / shown.height)
        let toOrigin = AffineTransform2D(a: 1, b: 0, c: 0, d: 1, tx: -box.minX, ty: -box.minY)
        let fit = AffineTransform2D(a: scale, b: 0, c: 0, d: scale,
                                  tx: (frame.width - shown.width * scale) / 2, ty: (frame.height - shown.height * scale) / 2)
        return geometry.transform.concatenating(toOrigin).concatenating(fit)
    }
}
