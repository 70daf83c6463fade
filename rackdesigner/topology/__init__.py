"""The fabric graph and its analytics; graph exports will live beside it."""
