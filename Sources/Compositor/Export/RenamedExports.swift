// The exports' names before 0.9.0, kept so code written against them still builds (with a
// warning naming the new name). The two exports now read alike: MP4Exporter / MP4Export /
// MP4ExportError, and HLSExporter / HLSExport / HLSExportError.

@available(*, deprecated, renamed: "MP4Exporter")
public typealias CompositionRenderer = MP4Exporter

extension MP4Exporter {
    @available(*, deprecated, renamed: "MP4Export")
    public typealias Rendered = MP4Export
    @available(*, deprecated, renamed: "MP4ExportError")
    public typealias RenderError = MP4ExportError
}

@available(*, deprecated, renamed: "HLSExporter")
public typealias HLSCompositionStitcher = HLSExporter

@available(*, deprecated, renamed: "HLSExport")
public typealias HLSStitchedComposition = HLSExport

@available(*, deprecated, renamed: "HLSExportError")
public typealias HLSCompositionStitchError = HLSExportError
