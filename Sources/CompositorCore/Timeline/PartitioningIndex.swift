extension RandomAccessCollection {
    /// The first index whose element satisfies `predicate`, which must be false then true along
    /// the collection (a binary search); `endIndex` when none does.
    @inlinable
    package func partitioningIndex(where predicate: (Element) -> Bool) -> Index {
        var low = startIndex
        var remaining = count
        while remaining > 0 {
            let half = remaining / 2
            let middle = index(low, offsetBy: half)
            if predicate(self[middle]) {
                remaining = half
            } else {
                low = index(after: middle)
                remaining -= half + 1
            }
        }
        return low
    }
}
