/**
 * Where oversized guide PDFs are written in the media bucket: its own file, so the group's
 * access can name it without loading pdfkit.
 */
export const PDF_PREFIX = 'pdf/';
