module saji

go 1.26
