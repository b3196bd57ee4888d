// `import Compositor` is all an app writes: the pure core, and the few public types of the MP4
// and HLS layers that appear in this module's API (their errors, cut modes and progress).
@_exported import CompositorCore
@_exported import CompositorHLS
@_exported import CompositorMP4
@_exported import CompositorAds
