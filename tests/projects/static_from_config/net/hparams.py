WIDTHS = [4, 8, 2]
