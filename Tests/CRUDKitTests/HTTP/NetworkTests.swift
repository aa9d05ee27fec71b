import Testing

/// Every test that goes through sockets, run one at a time: several move tens of megabytes or start dozens of
/// threads, and the memory-bound checks of ``LargeTransferTests`` must not see the others' allocations.
@Suite(.serialized) enum NetworkTests {}
