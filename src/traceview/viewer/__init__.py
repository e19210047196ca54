"""The local viewer: JSON answers, the server, the page packer and the static JS/CSS."""
