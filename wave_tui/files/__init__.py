"""File-system utilities shared by the tools and memory: real paths and containment, globbing, text files and the read state."""
