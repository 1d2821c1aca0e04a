"""Fetching target pages and, later, the browser farm."""
