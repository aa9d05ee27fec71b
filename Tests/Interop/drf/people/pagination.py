from rest_framework.pagination import PageNumberPagination


class PageNumberWithSizePagination(PageNumberPagination):
    """DRF's page-number envelope {count, next, previous, results}; ?page=N and ?page_size=N (max 100)."""

    page_size = 10
    page_size_query_param = "page_size"
    max_page_size = 100
