extension PageSignals {
    /// Why a walk that ended after this page is not the whole list, or `nil` when it is: fewer items than the
    /// declared total, or (with no total) a full page with no way to ask for the next one.
    ///
    /// No alarm for a page shorter than its size with no signals at all (that is the end), for a last page that is
    /// exactly full when the server said it is the last (`"next": null`), or for more items than the total (items
    /// created during the walk).
    /// - Parameters:
    ///   - model: The model walked.
    ///   - received: The items the walk handed out.
    ///   - pages: The pages it read.
    ///   - endedWithoutNext: Whether the walk ended because this page had no next page (rather than a next page
    ///     already read, or a page of items already seen).
    func shortfall<Model>(
        of model: Model.Type, received: Int, pages: Int, endedWithoutNext: Bool = false
    ) -> ListShortfall? {
        if let total {
            guard received < total else { return nil }
        } else {
            guard endedWithoutNext, !saysLast, let pageSize, count > 0, count >= pageSize else { return nil }
        }
        return ListShortfall(
            resource: String(describing: model), received: received, pages: pages, declaredTotal: total,
            pageSize: pageSize, lastPageCount: count, signals: found, suggestion: suggestion)
    }
}
