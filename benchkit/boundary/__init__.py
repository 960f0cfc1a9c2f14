"""BSDProbe."""
