"""One module per wire API; each defines `PROVIDER: ApiProvider` and is imported lazily."""
