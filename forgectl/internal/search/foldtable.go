package search

// fullFold is the full case folding of r when it is more than one rune
// (Unicode's CaseFolding.txt, status F: ß is "ss", ﬁ is "fi", ΐ is ι with
// two accents); every other rune folds to one rune (foldRune). The table
// is the one golang.org/x/text/cases.Fold applies, checked against it by
// TestFullFoldIsUnicodes; kept here so that the binary carries 104
// entries, not the cases package.
func fullFold(r rune) (string, bool) {
	switch r {
	case 0x00DF:
		return "ss", true
	case 0x0130:
		return "i\u0307", true
	case 0x0149:
		return "\u02bcn", true
	case 0x01F0:
		return "j\u030c", true
	case 0x0390:
		return "\u03b9\u0308\u0301", true
	case 0x03B0:
		return "\u03c5\u0308\u0301", true
	case 0x0587:
		return "\u0565\u0582", true
	case 0x1E96:
		return "h\u0331", true
	case 0x1E97:
		return "t\u0308", true
	case 0x1E98:
		return "w\u030a", true
	case 0x1E99:
		return "y\u030a", true
	case 0x1E9A:
		return "a\u02be", true
	case 0x1E9E:
		return "ss", true
	case 0x1F50:
		return "\u03c5\u0313", true
	case 0x1F52:
		return "\u03c5\u0313\u0300", true
	case 0x1F54:
		return "\u03c5\u0313\u0301", true
	case 0x1F56:
		return "\u03c5\u0313\u0342", true
	case 0x1F80:
		return "\u1f00\u03b9", true
	case 0x1F81:
		return "\u1f01\u03b9", true
	case 0x1F82:
		return "\u1f02\u03b9", true
	case 0x1F83:
		return "\u1f03\u03b9", true
	case 0x1F84:
		return "\u1f04\u03b9", true
	case 0x1F85:
		return "\u1f05\u03b9", true
	case 0x1F86:
		return "\u1f06\u03b9", true
	case 0x1F87:
		return "\u1f07\u03b9", true
	case 0x1F88:
		return "\u1f00\u03b9", true
	case 0x1F89:
		return "\u1f01\u03b9", true
	case 0x1F8A:
		return "\u1f02\u03b9", true
	case 0x1F8B:
		return "\u1f03\u03b9", true
	case 0x1F8C:
		return "\u1f04\u03b9", true
	case 0x1F8D:
		return "\u1f05\u03b9", true
	case 0x1F8E:
		return "\u1f06\u03b9", true
	case 0x1F8F:
		return "\u1f07\u03b9", true
	case 0x1F90:
		return "\u1f20\u03b9", true
	case 0x1F91:
		return "\u1f21\u03b9", true
	case 0x1F92:
		return "\u1f22\u03b9", true
	case 0x1F93:
		return "\u1f23\u03b9", true
	case 0x1F94:
		return "\u1f24\u03b9", true
	case 0x1F95:
		return "\u1f25\u03b9", true
	case 0x1F96:
		return "\u1f26\u03b9", true
	case 0x1F97:
		return "\u1f27\u03b9", true
	case 0x1F98:
		return "\u1f20\u03b9", true
	case 0x1F99:
		return "\u1f21\u03b9", true
	case 0x1F9A:
		return "\u1f22\u03b9", true
	case 0x1F9B:
		return "\u1f23\u03b9", true
	case 0x1F9C:
		return "\u1f24\u03b9", true
	case 0x1F9D:
		return "\u1f25\u03b9", true
	case 0x1F9E:
		return "\u1f26\u03b9", true
	case 0x1F9F:
		return "\u1f27\u03b9", true
	case 0x1FA0:
		return "\u1f60\u03b9", true
	case 0x1FA1:
		return "\u1f61\u03b9", true
	case 0x1FA2:
		return "\u1f62\u03b9", true
	case 0x1FA3:
		return "\u1f63\u03b9", true
	case 0x1FA4:
		return "\u1f64\u03b9", true
	case 0x1FA5:
		return "\u1f65\u03b9", true
	case 0x1FA6:
		return "\u1f66\u03b9", true
	case 0x1FA7:
		return "\u1f67\u03b9", true
	case 0x1FA8:
		return "\u1f60\u03b9", true
	case 0x1FA9:
		return "\u1f61\u03b9", true
	case 0x1FAA:
		return "\u1f62\u03b9", true
	case 0x1FAB:
		return "\u1f63\u03b9", true
	case 0x1FAC:
		return "\u1f64\u03b9", true
	case 0x1FAD:
		return "\u1f65\u03b9", true
	case 0x1FAE:
		return "\u1f66\u03b9", true
	case 0x1FAF:
		return "\u1f67\u03b9", true
	case 0x1FB2:
		return "\u1f70\u03b9", true
	case 0x1FB3:
		return "\u03b1\u03b9", true
	case 0x1FB4:
		return "\u03ac\u03b9", true
	case 0x1FB6:
		return "\u03b1\u0342", true
	case 0x1FB7:
		return "\u03b1\u0342\u03b9", true
	case 0x1FBC:
		return "\u03b1\u03b9", true
	case 0x1FC2:
		return "\u1f74\u03b9", true
	case 0x1FC3:
		return "\u03b7\u03b9", true
	case 0x1FC4:
		return "\u03ae\u03b9", true
	case 0x1FC6:
		return "\u03b7\u0342", true
	case 0x1FC7:
		return "\u03b7\u0342\u03b9", true
	case 0x1FCC:
		return "\u03b7\u03b9", true
	case 0x1FD2:
		return "\u03b9\u0308\u0300", true
	case 0x1FD3:
		return "\u03b9\u0308\u0301", true
	case 0x1FD6:
		return "\u03b9\u0342", true
	case 0x1FD7:
		return "\u03b9\u0308\u0342", true
	case 0x1FE2:
		return "\u03c5\u0308\u0300", true
	case 0x1FE3:
		return "\u03c5\u0308\u0301", true
	case 0x1FE4:
		return "\u03c1\u0313", true
	case 0x1FE6:
		return "\u03c5\u0342", true
	case 0x1FE7:
		return "\u03c5\u0308\u0342", true
	case 0x1FF2:
		return "\u1f7c\u03b9", true
	case 0x1FF3:
		return "\u03c9\u03b9", true
	case 0x1FF4:
		return "\u03ce\u03b9", true
	case 0x1FF6:
		return "\u03c9\u0342", true
	case 0x1FF7:
		return "\u03c9\u0342\u03b9", true
	case 0x1FFC:
		return "\u03c9\u03b9", true
	case 0xFB00:
		return "ff", true
	case 0xFB01:
		return "fi", true
	case 0xFB02:
		return "fl", true
	case 0xFB03:
		return "ffi", true
	case 0xFB04:
		return "ffl", true
	case 0xFB05:
		return "st", true
	case 0xFB06:
		return "st", true
	case 0xFB13:
		return "\u0574\u0576", true
	case 0xFB14:
		return "\u0574\u0565", true
	case 0xFB15:
		return "\u0574\u056b", true
	case 0xFB16:
		return "\u057e\u0576", true
	case 0xFB17:
		return "\u0574\u056d", true
	}
	return "", false
}
