// Upload by drag and drop or the file picker, with progress and the server's refusal in words.
// A file that fails ingestion is listed too, with its reason.
import { useState } from "react";
import { errorText } from "../../lib/api";
import { useUpload } from "../../lib/queries/datasets";

export function UploadDropzone() {
  const upload = useUpload();
  const [progress, setProgress] = useState<number | null>(null);
  const [dragging, setDragging] = useState(false);
  const send = (file: File) => {
    setProgress(0);
    upload.mutate({ file, onProgress: setProgress }, { onSettled: () => setProgress(null) });
  };
  return (
    <div
      className={`dropzone ${dragging ? "dragging" : ""}`}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        e.preventDefault();
        setDragging(false);
        const f = e.dataTransfer.files[0];
        if (f) send(f);
      }}
    >
      <p>Drop a CSV, TSV, Parquet, JSON or NDJSON file — or a Markdown or text document (.md, .txt) for the assistant to cite — here, or</p>
      {/* The browser's own file control, kept for the keyboard and screen readers, under a button of ours. */}
      <label className="pick-file">
        <input
          type="file"
          className="sr-only"
          aria-label="Choose a file to upload as a dataset"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) send(f);
            e.target.value = "";
          }}
        />
        Choose a file…
      </label>
      {progress !== null && <progress value={progress} max={1} aria-label="Upload progress" />}
      {upload.isError && <p className="error" role="alert">{errorText(upload.error)}</p>}
    </div>
  );
}
