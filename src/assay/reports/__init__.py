"""Renderers: pure functions from stored results and their analysis to text."""
