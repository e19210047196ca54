"""What the viewer draws, as data: timeline tiles, flame layouts, the frame budget."""
