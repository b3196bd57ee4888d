// Stand-in for CoreGraphics' CGAffineTransform (CoreGraphics/CGAffineTransform.h), which
// AVFoundation re-exports and which swift-corelibs-foundation does not provide. `CGSize` and
// `CGFloat` come from Foundation on every platform.
#if !canImport(CoreGraphics)
import Foundation

/// `CGAffineTransform`: `[a b 0; c d 0; tx ty 1]`, applied to row vectors `[x y 1]`.
public struct CGAffineTransform: Sendable, Equatable {
    public var a: CGFloat, b: CGFloat, c: CGFloat, d: CGFloat, tx: CGFloat, ty: CGFloat

    public init(a: CGFloat, b: CGFloat, c: CGFloat, d: CGFloat, tx: CGFloat, ty: CGFloat) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    public static let identity = CGAffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// `CGAffineTransformConcat(self, t2)`: `self` first, then `t2`.
    public func concatenating(_ t2: CGAffineTransform) -> CGAffineTransform {
        CGAffineTransform(
            a: a * t2.a + b * t2.c, b: a * t2.b + b * t2.d,
            c: c * t2.a + d * t2.c, d: c * t2.b + d * t2.d,
            tx: tx * t2.a + ty * t2.c + t2.tx, ty: tx * t2.b + ty * t2.d + t2.ty)
    }
}

extension CGSize {
    /// `CGSizeApplyAffineTransform`.
    public func applying(_ t: CGAffineTransform) -> CGSize {
        CGSize(width: t.a * width + t.c * height, height: t.b * width + t.d * height)
    }
}
#endif
