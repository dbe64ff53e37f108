; ModuleID = 'examples/recursion.c'
source_filename = "examples/recursion.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@__const.main.a = private unnamed_addr constant [4 x i32] [i32 5, i32 3, i32 9, i32 1], align 16
@.str = private unnamed_addr constant [11 x i8] c"%ld %d %d\0A\00", align 1

; Function Attrs: nounwind uwtable
define dso_local i32 @main() #0 !dbg !9 {
  %1 = alloca i32, align 4
  %2 = alloca [4 x i32], align 16
  store i32 0, i32* %1, align 4
  %3 = bitcast [4 x i32]* %2 to i8*, !dbg !18
  call void @llvm.lifetime.start.p0i8(i64 16, i8* %3) #5, !dbg !18
  call void @llvm.dbg.declare(metadata [4 x i32]* %2, metadata !14, metadata !DIExpression()), !dbg !19
  %4 = bitcast [4 x i32]* %2 to i8*, !dbg !19
  call void @llvm.memcpy.p0i8.p0i8.i64(i8* align 16 %4, i8* align 16 bitcast ([4 x i32]* @__const.main.a to i8*), i64 16, i1 false), !dbg !19
  %5 = call i64 @fib(i32 noundef 10), !dbg !20
  %6 = getelementptr inbounds [4 x i32], [4 x i32]* %2, i64 0, i64 0, !dbg !21
  %7 = call i32 @find(i32* noundef %6, i32 noundef 4, i32 noundef 9), !dbg !22
  %8 = getelementptr inbounds [4 x i32], [4 x i32]* %2, i64 0, i64 0, !dbg !23
  %9 = call i32 @find(i32* noundef %8, i32 noundef 4, i32 noundef 7), !dbg !24
  %10 = call i32 (i8*, ...) @printf(i8* noundef getelementptr inbounds ([11 x i8], [11 x i8]* @.str, i64 0, i64 0), i64 noundef %5, i32 noundef %7, i32 noundef %9), !dbg !25
  %11 = bitcast [4 x i32]* %2 to i8*, !dbg !26
  call void @llvm.lifetime.end.p0i8(i64 16, i8* %11) #5, !dbg !26
  ret i32 0, !dbg !27
}

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture) #1

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.declare(metadata, metadata, metadata) #2

; Function Attrs: argmemonly nofree nounwind willreturn
declare void @llvm.memcpy.p0i8.p0i8.i64(i8* noalias nocapture writeonly, i8* noalias nocapture readonly, i64, i1 immarg) #3

declare i32 @printf(i8* noundef, ...) #4

; Function Attrs: nounwind uwtable
define internal i64 @fib(i32 noundef %0) #0 !dbg !28 {
  %2 = alloca i64, align 8
  %3 = alloca i32, align 4
  store i32 %0, i32* %3, align 4, !tbaa !34
  call void @llvm.dbg.declare(metadata i32* %3, metadata !33, metadata !DIExpression()), !dbg !38
  %4 = load i32, i32* %3, align 4, !dbg !39, !tbaa !34
  %5 = icmp slt i32 %4, 2, !dbg !41
  br i1 %5, label %6, label %9, !dbg !42

6:                                                ; preds = %1
  %7 = load i32, i32* %3, align 4, !dbg !43, !tbaa !34
  %8 = sext i32 %7 to i64, !dbg !43
  store i64 %8, i64* %2, align 8, !dbg !44
  br label %17, !dbg !44

9:                                                ; preds = %1
  %10 = load i32, i32* %3, align 4, !dbg !45, !tbaa !34
  %11 = sub nsw i32 %10, 1, !dbg !46
  %12 = call i64 @fib(i32 noundef %11), !dbg !47
  %13 = load i32, i32* %3, align 4, !dbg !48, !tbaa !34
  %14 = sub nsw i32 %13, 2, !dbg !49
  %15 = call i64 @fib(i32 noundef %14), !dbg !50
  %16 = add nsw i64 %12, %15, !dbg !51
  store i64 %16, i64* %2, align 8, !dbg !52
  br label %17, !dbg !52

17:                                               ; preds = %9, %6
  %18 = load i64, i64* %2, align 8, !dbg !53
  ret i64 %18, !dbg !53
}

; Function Attrs: nounwind uwtable
define internal i32 @find(i32* noundef %0, i32 noundef %1, i32 noundef %2) #0 !dbg !54 {
  %4 = alloca i32, align 4
  %5 = alloca i32*, align 8
  %6 = alloca i32, align 4
  %7 = alloca i32, align 4
  %8 = alloca i32, align 4
  %9 = alloca i32, align 4
  store i32* %0, i32** %5, align 8, !tbaa !65
  call void @llvm.dbg.declare(metadata i32** %5, metadata !60, metadata !DIExpression()), !dbg !67
  store i32 %1, i32* %6, align 4, !tbaa !34
  call void @llvm.dbg.declare(metadata i32* %6, metadata !61, metadata !DIExpression()), !dbg !68
  store i32 %2, i32* %7, align 4, !tbaa !34
  call void @llvm.dbg.declare(metadata i32* %7, metadata !62, metadata !DIExpression()), !dbg !69
  %10 = bitcast i32* %8 to i8*, !dbg !70
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %10) #5, !dbg !70
  call void @llvm.dbg.declare(metadata i32* %8, metadata !63, metadata !DIExpression()), !dbg !71
  store i32 0, i32* %8, align 4, !dbg !71, !tbaa !34
  br label %11, !dbg !70

11:                                               ; preds = %27, %3
  %12 = load i32, i32* %8, align 4, !dbg !72, !tbaa !34
  %13 = load i32, i32* %6, align 4, !dbg !74, !tbaa !34
  %14 = icmp slt i32 %12, %13, !dbg !75
  br i1 %14, label %16, label %15, !dbg !76

15:                                               ; preds = %11
  store i32 2, i32* %9, align 4
  br label %30, !dbg !76

16:                                               ; preds = %11
  %17 = load i32*, i32** %5, align 8, !dbg !77, !tbaa !65
  %18 = load i32, i32* %8, align 4, !dbg !79, !tbaa !34
  %19 = sext i32 %18 to i64, !dbg !77
  %20 = getelementptr inbounds i32, i32* %17, i64 %19, !dbg !77
  %21 = load i32, i32* %20, align 4, !dbg !77, !tbaa !34
  %22 = load i32, i32* %7, align 4, !dbg !80, !tbaa !34
  %23 = icmp eq i32 %21, %22, !dbg !81
  br i1 %23, label %24, label %26, !dbg !82

24:                                               ; preds = %16
  %25 = load i32, i32* %8, align 4, !dbg !83, !tbaa !34
  store i32 %25, i32* %4, align 4, !dbg !84
  store i32 1, i32* %9, align 4
  br label %30, !dbg !84

26:                                               ; preds = %16
  br label %27, !dbg !80

27:                                               ; preds = %26
  %28 = load i32, i32* %8, align 4, !dbg !85, !tbaa !34
  %29 = add nsw i32 %28, 1, !dbg !85
  store i32 %29, i32* %8, align 4, !dbg !85, !tbaa !34
  br label %11, !dbg !86, !llvm.loop !87

30:                                               ; preds = %24, %15
  %31 = bitcast i32* %8 to i8*, !dbg !86
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %31) #5, !dbg !86
  %32 = load i32, i32* %9, align 4
  switch i32 %32, label %36 [
    i32 2, label %33
    i32 1, label %34
  ]

33:                                               ; preds = %30
  store i32 -1, i32* %4, align 4, !dbg !90
  br label %34, !dbg !90

34:                                               ; preds = %33, %30
  %35 = load i32, i32* %4, align 4, !dbg !91
  ret i32 %35, !dbg !91

36:                                               ; preds = %30
  unreachable
}

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture) #1

attributes #0 = { nounwind uwtable "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { argmemonly nofree nosync nounwind willreturn }
attributes #2 = { nofree nosync nounwind readnone speculatable willreturn }
attributes #3 = { argmemonly nofree nounwind willreturn }
attributes #4 = { "frame-pointer"="none" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "Debian clang version 14.0.6", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "examples/recursion.c", directory: "/src", checksumkind: CSK_MD5, checksum: "b89d0549e9d4019e4361010ac295a28e")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 7, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 1}
!8 = !{!"Debian clang version 14.0.6"}
!9 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 17, type: !10, scopeLine: 17, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !13)
!10 = !DISubroutineType(types: !11)
!11 = !{!12}
!12 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!13 = !{!14}
!14 = !DILocalVariable(name: "a", scope: !9, file: !1, line: 18, type: !15)
!15 = !DICompositeType(tag: DW_TAG_array_type, baseType: !12, size: 128, elements: !16)
!16 = !{!17}
!17 = !DISubrange(count: 4)
!18 = !DILocation(line: 18, column: 3, scope: !9)
!19 = !DILocation(line: 18, column: 7, scope: !9)
!20 = !DILocation(line: 19, column: 25, scope: !9)
!21 = !DILocation(line: 19, column: 39, scope: !9)
!22 = !DILocation(line: 19, column: 34, scope: !9)
!23 = !DILocation(line: 19, column: 54, scope: !9)
!24 = !DILocation(line: 19, column: 49, scope: !9)
!25 = !DILocation(line: 19, column: 3, scope: !9)
!26 = !DILocation(line: 21, column: 1, scope: !9)
!27 = !DILocation(line: 20, column: 3, scope: !9)
!28 = distinct !DISubprogram(name: "fib", scope: !1, file: !1, line: 4, type: !29, scopeLine: 4, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !32)
!29 = !DISubroutineType(types: !30)
!30 = !{!31, !12}
!31 = !DIBasicType(name: "long", size: 64, encoding: DW_ATE_signed)
!32 = !{!33}
!33 = !DILocalVariable(name: "n", arg: 1, scope: !28, file: !1, line: 4, type: !12)
!34 = !{!35, !35, i64 0}
!35 = !{!"int", !36, i64 0}
!36 = !{!"omnipotent char", !37, i64 0}
!37 = !{!"Simple C/C++ TBAA"}
!38 = !DILocation(line: 4, column: 21, scope: !28)
!39 = !DILocation(line: 5, column: 7, scope: !40)
!40 = distinct !DILexicalBlock(scope: !28, file: !1, line: 5, column: 7)
!41 = !DILocation(line: 5, column: 9, scope: !40)
!42 = !DILocation(line: 5, column: 7, scope: !28)
!43 = !DILocation(line: 6, column: 12, scope: !40)
!44 = !DILocation(line: 6, column: 5, scope: !40)
!45 = !DILocation(line: 7, column: 14, scope: !28)
!46 = !DILocation(line: 7, column: 16, scope: !28)
!47 = !DILocation(line: 7, column: 10, scope: !28)
!48 = !DILocation(line: 7, column: 27, scope: !28)
!49 = !DILocation(line: 7, column: 29, scope: !28)
!50 = !DILocation(line: 7, column: 23, scope: !28)
!51 = !DILocation(line: 7, column: 21, scope: !28)
!52 = !DILocation(line: 7, column: 3, scope: !28)
!53 = !DILocation(line: 8, column: 1, scope: !28)
!54 = distinct !DISubprogram(name: "find", scope: !1, file: !1, line: 10, type: !55, scopeLine: 10, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !59)
!55 = !DISubroutineType(types: !56)
!56 = !{!12, !57, !12, !12}
!57 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !58, size: 64)
!58 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !12)
!59 = !{!60, !61, !62, !63}
!60 = !DILocalVariable(name: "a", arg: 1, scope: !54, file: !1, line: 10, type: !57)
!61 = !DILocalVariable(name: "n", arg: 2, scope: !54, file: !1, line: 10, type: !12)
!62 = !DILocalVariable(name: "x", arg: 3, scope: !54, file: !1, line: 10, type: !12)
!63 = !DILocalVariable(name: "i", scope: !64, file: !1, line: 11, type: !12)
!64 = distinct !DILexicalBlock(scope: !54, file: !1, line: 11, column: 3)
!65 = !{!66, !66, i64 0}
!66 = !{!"any pointer", !36, i64 0}
!67 = !DILocation(line: 10, column: 28, scope: !54)
!68 = !DILocation(line: 10, column: 35, scope: !54)
!69 = !DILocation(line: 10, column: 42, scope: !54)
!70 = !DILocation(line: 11, column: 8, scope: !64)
!71 = !DILocation(line: 11, column: 12, scope: !64)
!72 = !DILocation(line: 11, column: 19, scope: !73)
!73 = distinct !DILexicalBlock(scope: !64, file: !1, line: 11, column: 3)
!74 = !DILocation(line: 11, column: 23, scope: !73)
!75 = !DILocation(line: 11, column: 21, scope: !73)
!76 = !DILocation(line: 11, column: 3, scope: !64)
!77 = !DILocation(line: 12, column: 9, scope: !78)
!78 = distinct !DILexicalBlock(scope: !73, file: !1, line: 12, column: 9)
!79 = !DILocation(line: 12, column: 11, scope: !78)
!80 = !DILocation(line: 12, column: 17, scope: !78)
!81 = !DILocation(line: 12, column: 14, scope: !78)
!82 = !DILocation(line: 12, column: 9, scope: !73)
!83 = !DILocation(line: 13, column: 14, scope: !78)
!84 = !DILocation(line: 13, column: 7, scope: !78)
!85 = !DILocation(line: 11, column: 27, scope: !73)
!86 = !DILocation(line: 11, column: 3, scope: !73)
!87 = distinct !{!87, !76, !88, !89}
!88 = !DILocation(line: 13, column: 14, scope: !64)
!89 = !{!"llvm.loop.mustprogress"}
!90 = !DILocation(line: 14, column: 3, scope: !54)
!91 = !DILocation(line: 15, column: 1, scope: !54)
